import { bootCore, session, tick } from './lib.mjs'
const ctx = bootCore({ persistence: { root: process.argv[2] } })
await tick()
const [snap] = await ctx.sessionPersistence.listSnapshots()
const { events } = await ctx.sessionPersistence.inspect(snap.meta.id)
for (let i = 0; i < 3; i++) {
  let t = performance.now(); session.verifyDigests(events); const v = performance.now() - t
  t = performance.now(); session.cachePrefixReport(events); console.log(v.toFixed(0), (performance.now() - t).toFixed(0))
}
await ctx.scope.dispose()
