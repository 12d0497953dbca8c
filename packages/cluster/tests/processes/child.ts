/**
 * The child process of the cluster's crash tests: argv[2] is a role, argv[3] its JSON config. It reports facts on
 * stdout, one per line, so the parent knows what the worker was doing when it acted:
 *
 * - `ready`: the worker takes jobs;
 * - `start <session> <retry>` / `end <session> <outcome> <continued>`: a job began / ended (`cluster/job-*`);
 * - `warn <text>`: a warning of the cluster or session-postgres;
 * - `drained <n>` then `done`: after SIGTERM, the worker drained (n jobs handed back) and the app stopped.
 */
import { Logger } from 'cordis'
import type { ClusterDb } from '../app.js'
import { startWorkerApp } from '../app.js'

const say = (line: string) => process.stdout.write(line + '\n')

;(Logger.targets as unknown[]).push({
  record(record: { name: string; type: string; content: string }) {
    if (record.type === 'warn' || record.type === 'error')
      say(`warn ${record.name}: ${record.content.replace(/\n/g, ' ')}`)
  },
})

interface WorkerConfig extends ClusterDb {
  concurrency: number
  latencyMs: number
  leaseMs: number
  graceMs?: number
}

async function worker(config: WorkerConfig): Promise<void> {
  const app = await startWorkerApp(config, {
    worker: { concurrency: config.concurrency },
    leaseMs: config.leaseMs,
    latencyMs: config.latencyMs,
  })
  app.ctx.on('cluster/job-started', ({ session, retry }) => say(`start ${session} ${retry}`))
  app.ctx.on('cluster/job-finished', ({ session, outcome, continued }) => say(`end ${session} ${outcome} ${continued}`))
  say('ready')
  await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()))
  const { handedBack } = await app.worker.drain(config.graceMs ?? 30_000)
  say(`drained ${handedBack.length}`)
  // Handed-back sessions keep their agents undisposed (see ClusterWorker.drain); their leases lapse.
  if (handedBack.length === 0) await app.stop(0)
  say('done')
}

const [role, raw] = process.argv.slice(2)
if (role !== 'worker' || raw === undefined) {
  process.stderr.write('usage: child worker <json config>\n')
  process.exit(2)
}
worker(JSON.parse(raw) as WorkerConfig).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`child failed: ${String((error as Error)?.stack ?? error)}\n`)
    process.exit(1)
  },
)
