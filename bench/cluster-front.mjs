// A front process of the cluster benchmark (`startFront`, as `bridle serve` runs it): prints its URL, answers the
// benchmark's questions for its CPU time, and stops on SIGTERM.
import { Context } from 'cordis'
import { session } from './lib.mjs'

const dist = (path) => import(new URL(`../${path}/dist/index.js`, import.meta.url).href)
const [{ SessionPostgres }, { startFront }, { shutdown }] = await Promise.all([
  dist('packages/session-postgres'),
  dist('packages/cluster'),
  dist('packages/scope'),
])
const config = JSON.parse(process.argv[2])
const ctx = new Context()
ctx.plugin(session.SessionStore)
ctx.plugin(SessionPostgres, {
  connectionString: config.url,
  schema: config.schema,
  poolSize: 8,
  writeBatchMaxDelayMs: 5,
})
await new Promise((resolve) => setTimeout(resolve, 0))
const front = await startFront({ ctx, tokens: [config.token], queueSchema: config.queueSchema, viewer: false })
process.stdout.write(`${front.url}\n`)
// The benchmark asks for the CPU time used so far with a line on stdin (one answer a line).
process.stdin.on('data', (chunk) => {
  for (const _ of String(chunk).matchAll(/\n/g)) {
    const used = process.cpuUsage()
    process.stdout.write(`cpu ${(used.user + used.system) / 1000}\n`)
  }
})
process.once('SIGTERM', async () => {
  await front.close()
  await shutdown(ctx)
  process.exit(0)
})
