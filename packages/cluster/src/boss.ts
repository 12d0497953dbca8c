import { createRequire } from 'node:module'
import PgBoss from 'pg-boss'
import type pg from 'pg'
import type { ClusterNames } from './names.js'
import { prepared } from './prepared.js'

const require = createRequire(import.meta.url)
// The statements the work loop of pg-boss 10 sends after a handler, without awaiting them (README, "Why pg-boss 10.4.2").
const plans = require('pg-boss/src/plans.js') as {
  completeJobs(schema: string): string
  failJobsById(schema: string): string
}

/** What the queue needs from the engine's timing (all in seconds, as pg-boss takes them). */
export interface BossTiming {
  /** Run the engine's maintenance (expiring jobs of silent workers) in this process. */
  readonly supervise: boolean
  readonly maintenanceIntervalSeconds: number
  readonly pollingIntervalSeconds: number
}

/**
 * A pg-boss instance over `pool`, in the cluster's queue schema. Its database adapter is ours, for three reasons:
 *
 * - the work loop of pg-boss 10 completes a job by id alone once its handler returns, but the handler has already
 *   settled the job itself — completed it in a fenced transaction, failed it to hand it back, or lost it to a retry
 *   elsewhere, whose new activation (same id) that completion would end. So the loop's completion is answered here
 *   without a statement: it would change nothing, or the wrong activation;
 * - the loop calls `fail()` without awaiting it, so a lost connection at that moment would be an unhandled rejection
 *   that ends the process; that statement reports its error instead and resolves "nothing changed" (a job whose
 *   failure was lost is recovered by expiry);
 * - the loop fails a job whose handler outlived the job's expiry while the handler still runs; `owns(id)` names the
 *   jobs this process is still serving, whose fate their handler decides (it completes or hands back each one).
 */
export function createBoss(
  pool: pg.Pool,
  names: ClusterNames,
  timing: BossTiming,
  owns: (jobId: string) => boolean,
  report: (error: unknown) => void,
): PgBoss {
  const schema = names.queueSchema
  const complete = plans.completeJobs(schema)
  const fail = plans.failJobsById(schema)
  const db = {
    async executeSql(text: string, values: unknown[] = []) {
      if (text === complete) return { rows: [{ count: '0' }] }
      if (text === fail && Array.isArray(values[1]) && (values[1] as string[]).some(owns)) {
        return { rows: [{ count: '0' }] }
      }
      try {
        // A statement with parameters is one statement (pg-boss's fetch, send, …): prepare it once per connection.
        return await (values.length > 0 ? pool.query(prepared(text, values)) : pool.query(text))
      } catch (error) {
        if (text !== fail) throw error
        report(error)
        return { rows: [{ count: '0' }] }
      }
    },
  }
  const boss = new PgBoss({
    db,
    schema,
    supervise: timing.supervise,
    schedule: false,
    migrate: true,
    maintenanceIntervalSeconds: timing.maintenanceIntervalSeconds,
    pollingIntervalSeconds: timing.pollingIntervalSeconds,
    // Completed jobs are history only; keep them a day, then pg-boss archives and deletes them.
    archiveCompletedAfterSeconds: 86_400,
  } as PgBoss.ConstructorOptions)
  boss.on('error', report)
  return boss
}

/** The queue's settings: one active job per session key (`singleton`), retried after a crash or a hand-back. */
export interface QueueSettings {
  /** The bound pg-boss puts on one job in the process that runs it (the longest a session may be served in one go). */
  readonly expireInSeconds: number
  readonly retryLimit: number
  readonly retryDelaySeconds: number
}

/** Creates the session queue (policy `singleton`) if missing and applies `settings` to it. */
export async function ensureQueue(boss: PgBoss, names: ClusterNames, settings: QueueSettings): Promise<void> {
  const options = {
    policy: 'singleton' as const,
    expireInSeconds: settings.expireInSeconds,
    retryLimit: settings.retryLimit,
    retryDelay: settings.retryDelaySeconds,
    retryBackoff: false,
  }
  // Processes that start together race to create the queue (its partition table), which PostgreSQL can answer with
  // a deadlock or a duplicate: the loser tries again and finds the queue made.
  for (let attempt = 1; ; attempt++) {
    try {
      if ((await boss.getQueue(names.queue)) === null) await boss.createQueue(names.queue, options as PgBoss.Queue)
      await boss.updateQueue(names.queue, options as PgBoss.Queue)
      return
    } catch (error) {
      const code = (error as { code?: string }).code
      if (attempt >= 10 || (code !== '40P01' && code !== '23505' && code !== '42P07')) throw error
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.floor(Math.random() * 50)))
    }
  }
}
