// A front process of the cluster benchmark (`startFront`, as `bridle serve` runs it): prints its URL, and on SIGTERM
// the CPU time it used while serving, then stops.
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
const cpu = process.cpuUsage()
process.stdout.write(`${front.url}\n`)
process.once('SIGTERM', async () => {
  const used = process.cpuUsage(cpu)
  process.stdout.write(`cpu ${(used.user + used.system) / 1000}\n`)
  await front.close()
  await shutdown(ctx)
  process.exit(0)
})
