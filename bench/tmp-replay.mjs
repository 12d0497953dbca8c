import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bootCore, session, tick } from './lib.mjs'
import { recordSession } from './viewer-first-paint.mjs'
const root = join(mkdtempSync(join(tmpdir(), 'vs-')), 's')
const rec = await recordSession(root, Number(process.argv[2] ?? 10000))
const ctx = bootCore({ persistence: { root } })
await tick()
const { events } = await ctx.sessionPersistence.inspect(rec.id)
console.log('events', events.length)
for (const [name, fn] of [['verifyDigests', session.verifyDigests], ['cachePrefixReport', session.cachePrefixReport]]) {
  const t = performance.now(); const r = fn(events); console.log(name, r.length, (performance.now() - t).toFixed(0), 'ms', r.every?.((x) => x.ok !== false))
}
await ctx.scope.dispose()
console.log(process.argv[3] ?? '', root)
