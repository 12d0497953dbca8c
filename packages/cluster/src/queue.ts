import type PgBoss from 'pg-boss'
import pg from 'pg'

const { escapeLiteral } = pg
import type { ClusterNames, SessionJobData } from './names.js'
import { prepared } from './prepared.js'

/** A job as the worker holds it: its id and which activation of it this is (pg-boss counts them in `retryCount`). */
export interface HeldJob {
  readonly id: string
  readonly retryCount: number
  readonly session: string
}

/** How `finish` ended a job. */
export type FinishOutcome = 'completed' | 'requeued' | 'lost'

/** What a transaction's decision resolves, and the NOTIFY (if any) that goes out with its commit. */
interface Settled<T> {
  readonly value: T
  readonly notify?: string
}

/** A SQL string literal: the transactions' statements go out together in one simple-protocol message. */
const literal = (value: string) => escapeLiteral(value)

/** pg-boss's `db` option over one client, so `send` runs inside our transaction. */
const inTransaction = (client: pg.PoolClient) => ({
  executeSql: (text: string, values: unknown[]) => client.query(prepared(text, values)),
})

/**
 * The session queue: at most one job per session in the queue at a time (queued, retrying or active), so pg-boss's
 * fetch never meets a second job of a key that is already active (README, "Why pg-boss 10.4.2"). Messages wait
 * in session-postgres's durable inbox; whoever changes a session's job does so under a transaction-scoped advisory
 * lock on the session, and a worker that finishes a job enqueues the next one itself, in the same transaction, when
 * messages arrived that it did not take.
 */
export class SessionQueue {
  private waiting: { readonly at: number; readonly answer: Promise<boolean> } | undefined

  constructor(
    private readonly pool: pg.Pool,
    private readonly boss: PgBoss,
    readonly names: ClusterNames,
  ) {}

  /**
   * Enqueues a job for `session` unless one is already queued, retrying or active (its worker will find the new
   * messages), and wakes the workers. Resolves the new job's id, or `undefined` when one was already there.
   */
  async enqueue(session: string): Promise<string | undefined> {
    const n = this.names
    return this.transaction(
      `${this.lockSql(session)};
       SELECT 1 FROM ${n.jobTable} WHERE name = ${literal(n.queue)} AND singleton_key = ${literal(session)}
          AND state < 'completed' LIMIT 1`,
      async (client, [, open]) => (open!.rows.length > 0 ? { value: undefined } : this.send(client, session)),
    )
  }

  /**
   * Completes the job `job` (only if it is still this activation of it: a job that expired and was retried elsewhere
   * is `lost`, and its new holder serves the session), and in the same transaction enqueues the next job when
   * messages wait for the session that no agent took (`requeued`).
   */
  async finish(job: HeldJob): Promise<FinishOutcome> {
    const n = this.names
    return this.transaction(
      `${this.lockSql(job.session)};
       UPDATE ${n.jobTable} SET state = 'completed', completed_on = now(),
              output = ${literal(JSON.stringify({ session: job.session }))}::jsonb
        WHERE name = ${literal(n.queue)} AND id = ${literal(job.id)}::uuid AND retry_count = ${Number(job.retryCount)}
          AND state = 'active';
       SELECT 1 FROM ${n.messagesTable} WHERE session_id = ${literal(job.session)} AND delivered_seq IS NULL
          AND rejected IS NULL LIMIT 1`,
      async (client, [, done, waiting]): Promise<Settled<FinishOutcome>> => {
        if (done!.rowCount !== 1) return { value: 'lost' }
        if (waiting!.rows.length === 0) return { value: 'completed' }
        const { notify } = await this.send(client, job.session)
        return { value: 'requeued', notify }
      },
    )
  }

  /**
   * Keeps this process's active jobs alive: each one's expiry is moved to `seconds` from now, so maintenance retries
   * a job only after its worker has been silent that long (pg-boss 10 has no heartbeat of its own). Resolves the ids
   * that are no longer this activation (expired and retried, or finished).
   */
  async heartbeat(jobs: readonly HeldJob[], seconds: number): Promise<string[]> {
    if (jobs.length === 0) return []
    const n = this.names
    const { rows } = await this.pool.query(
      prepared(
        `UPDATE ${n.jobTable} j SET expire_in = (now() - j.started_on) + $4 * interval '1 second'
           FROM unnest($2::uuid[], $3::integer[]) AS h(id, n)
          WHERE j.name = $1 AND j.id = h.id AND j.retry_count = h.n AND j.state = 'active'
          RETURNING j.id`,
        [n.queue, jobs.map((j) => j.id), jobs.map((j) => j.retryCount), seconds],
      ),
    )
    const alive = new Set(rows.map((row: { id: string }) => row.id))
    return jobs.filter((j) => !alive.has(j.id)).map((j) => j.id)
  }

  /**
   * Repairs what no single step can: enqueues a job for every session whose messages wait with no job open (a front
   * that stopped between storing a message and enqueueing, a job whose retries ran out), and shortens the expiry of
   * active jobs that never got their first heartbeat (a worker killed right after it fetched one). Resolves the
   * sessions it enqueued.
   */
  async sweep(handoverSeconds: number, initialExpirySeconds: number): Promise<string[]> {
    const n = this.names
    await this.pool.query(
      `UPDATE ${n.jobTable} SET expire_in = interval '0'
        WHERE name = $1 AND state = 'active' AND expire_in = $2 * interval '1 second'
          AND started_on < now() - $3 * interval '1 second'`,
      [n.queue, initialExpirySeconds, handoverSeconds],
    )
    const { rows } = await this.pool.query(
      `SELECT DISTINCT m.session_id FROM ${n.messagesTable} m
        WHERE m.delivered_seq IS NULL AND m.rejected IS NULL
          AND NOT EXISTS (SELECT 1 FROM ${n.jobTable} j
                           WHERE j.name = $1 AND j.singleton_key = m.session_id AND j.state < 'completed')`,
      [n.queue],
    )
    const enqueued: string[] = []
    for (const { session_id: session } of rows as { session_id: string }[]) {
      if ((await this.enqueue(session)) !== undefined) enqueued.push(session)
    }
    return enqueued
  }

  /**
   * Whether a job of the queue waits for a worker now (queued or due for a retry). An answer at most `maxAgeMs` old
   * is reused (or one in flight shared), so the loops of a busy process ask once between them.
   */
  jobsWaiting(maxAgeMs = 0): Promise<boolean> {
    const now = Date.now()
    const last = this.waiting
    if (last !== undefined && now - last.at < maxAgeMs) return last.answer
    const answer = this.pool
      .query(
        prepared(
          `SELECT 1 FROM ${this.names.jobTable} WHERE name = $1 AND state < 'active' AND start_after <= now() LIMIT 1`,
          [this.names.queue],
        ),
      )
      .then(({ rows }) => rows.length > 0)
    this.waiting = { at: now, answer }
    answer.catch(() => {
      if (this.waiting?.answer === answer) this.waiting = undefined
    })
    return answer
  }

  /** Sends `session`'s job inside the open transaction; the wake-up goes out with the commit. */
  private async send(client: pg.PoolClient, session: string): Promise<Settled<string>> {
    const data: SessionJobData = { session }
    const id = await this.boss.send(
      this.names.queue,
      data as object,
      {
        singletonKey: session,
        db: inTransaction(client),
      } as PgBoss.SendOptions,
    )
    if (id === null) throw new Error(`cluster: pg-boss refused a job for session "${session}"`)
    // delivered when the transaction commits, so a worker never wakes before the job is visible
    return { value: id, notify: `SELECT pg_notify(${literal(this.names.jobsChannel)}, ${literal(session)})` }
  }

  private lockSql(session: string): string {
    const key = `bridle-cluster:${this.names.queueSchema}/${this.names.queue}:${session}`
    return `SELECT pg_advisory_xact_lock(hashtextextended(${literal(key)}, 0))`
  }

  /**
   * One transaction in as few round trips as it can take: `BEGIN`, the session's lock and `opening` (statements
   * separated by `;`, each with its own snapshot, so every one after the lock sees what committed before it was
   * granted) go in one message; `decide` gets their results (the lock's first) and may send more on the client; its
   * `notify` statement goes out with the `COMMIT`.
   */
  private async transaction<T>(
    opening: string,
    decide: (client: pg.PoolClient, results: pg.QueryResult[]) => Promise<Settled<T>>,
  ): Promise<T> {
    const client = await this.pool.connect()
    let broken: Error | undefined
    try {
      const results = (await client.query(`BEGIN; ${opening}`)) as unknown as pg.QueryResult[]
      const { value, notify } = await decide(client, results.slice(1))
      await client.query(notify === undefined ? 'COMMIT' : `${notify}; COMMIT`)
      return value
    } catch (error) {
      broken = error as Error
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release(broken !== undefined)
    }
  }
}
