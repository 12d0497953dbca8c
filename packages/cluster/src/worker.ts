import { HomeService } from '@bridle/scope'
import type { SessionPostgres } from '@bridle/session-postgres'
import type { Context } from 'cordis'
import pg from 'pg'
import type PgBoss from 'pg-boss'
import { createBoss, ensureQueue } from './boss.js'
import { Config, ConfigSchema, PLUGIN_NAME, type ClusterWorkerConfig, type ClusterWorkerConfigInput } from './config.js'
import { ChannelListener } from './listener.js'
import { clusterNames, type ClusterNames, type SessionJobData } from './names.js'
import type { JobFinishedPayload, JobOutcome } from './events.js'
import { SessionQueue, type FinishOutcome, type HeldJob } from './queue.js'
import { installCluster } from './schema.js'
import { serveSession } from './session-job.js'

declare module 'cordis' {
  interface Context {
    clusterWorker: ClusterWorker
  }
}

/** How long one answer to "do other jobs wait?" serves all the loops of a process (each asks before it lingers). */
const WAITING_MAX_AGE_MS = 100

interface Running extends HeldJob {
  readonly abort: AbortController
  readonly done: Promise<void>
}

/** What `drain` did. */
export interface DrainResult {
  /** Jobs that were still serving a session when the grace ran out; their sessions go to another worker. */
  readonly handedBack: readonly string[]
}

/**
 * The cluster worker (README): takes session jobs from a pg-boss queue in the sessions' database and serves each
 * session — holding its lease, resuming its agent, running the turns its waiting messages ask for — until it is
 * quiet, then completes the job. Load it after `SessionPostgres` and `AgentLoop`:
 * `ctx.plugin(ClusterWorker, { concurrency: 2 })`.
 */
export class ClusterWorker extends HomeService<ClusterWorkerConfig> {
  static readonly inject = ['sessions', 'sessionPersistence', 'agentLoop']
  static readonly Config = Config
  static readonly ConfigSchema = ConfigSchema

  /** Resolves once the worker takes jobs; rejects with what kept it from starting. */
  readonly ready: Promise<void>
  readonly names: ClusterNames
  private readonly persistence: SessionPostgres
  private readonly connectionString: string
  private readonly warnings: (message: string) => void
  private readonly running = new Map<string, Running>()
  private readonly loops: { id: string; busy: boolean }[] = []
  private pool: pg.Pool | undefined
  private boss: PgBoss | undefined
  private queue: SessionQueue | undefined
  private listener: ChannelListener | undefined
  private timers: ReturnType<typeof setInterval>[] = []
  private stopping = false
  /** Disposed without `drain()`: its agents were disposed mid-turn, so their jobs go back to the queue. */
  private disposing = false

  constructor(ctx: Context, config?: ClusterWorkerConfigInput) {
    super(ctx, 'clusterWorker', Config(config))
    const logger = ctx.logger(PLUGIN_NAME)
    this.warnings = (message) => logger.warn(message.replace(/%/g, '%%'))
    const persistence = ctx.get('sessionPersistence') as SessionPostgres | undefined
    if (persistence === undefined || typeof (persistence as { deliver?: unknown }).deliver !== 'function') {
      throw new Error('cluster: the worker needs @bridle/session-postgres as the session persistence')
    }
    this.persistence = persistence
    const connectionString = this.config.connectionString ?? persistence.config.connectionString
    if (connectionString === undefined) {
      throw new Error('cluster: no connectionString (set it here or on @bridle/session-postgres)')
    }
    this.connectionString = connectionString
    this.names = clusterNames(persistence.config.schema, this.config.queueSchema, this.config.queue)
    this.ready = this.launch()
    this.ready.catch((error: unknown) => logger.error(`cluster: the worker did not start: ${String(error)}`))
  }

  /** Sessions this process serves right now. */
  get serving(): readonly string[] {
    return [...this.running.values()].map((job) => job.session)
  }

  /**
   * Graceful shutdown, before the app is disposed: takes no new job, lets the jobs in flight finish their sessions
   * (up to `graceMs`), and hands back the rest — their sessions are flushed and their jobs returned to the queue for
   * another worker, which resumes each session from its log and continues the interrupted turn. A process that handed
   * jobs back should exit without disposing those agents (disposing would cancel their turns and clear their inboxes).
   */
  async drain(graceMs = 30_000): Promise<DrainResult> {
    this.stopping = true
    await this.ready.catch(() => undefined)
    for (const { id } of this.loops) await this.boss?.offWork({ id }).catch(() => undefined)
    const deadline = Date.now() + graceMs
    while (this.running.size > 0 && Date.now() < deadline) {
      await Promise.race([
        Promise.all([...this.running.values()].map((job) => job.done)),
        new Promise((resolve) => setTimeout(resolve, Math.max(1, deadline - Date.now()))),
      ])
    }
    const handedBack: string[] = []
    for (const job of [...this.running.values()]) {
      this.running.delete(job.id)
      job.abort.abort(new Error('cluster: the worker is shutting down'))
      const agent = this.ctx.get('agentLoop')?.get(job.session)
      if (agent !== undefined) await this.ctx.sessions.flush(agent.session).catch(() => undefined)
      await this.boss?.fail(this.names.queue, job.id, { message: 'handed back: the worker shut down' })
      handedBack.push(job.id)
      this.emitFinished(job, 'handed-back', false)
    }
    return { handedBack }
  }

  private async launch(): Promise<void> {
    const c = this.config
    await this.persistence.ready
    const pool = (this.pool = new pg.Pool({
      connectionString: this.connectionString,
      max: c.concurrency + 4,
      application_name: 'bridle-cluster',
    }))
    pool.on('error', (error) => this.warnings(`cluster: an idle database connection failed: ${String(error)}`))
    await installCluster(pool, this.names)
    const boss = (this.boss = createBoss(
      pool,
      this.names,
      {
        supervise: true,
        maintenanceIntervalSeconds: c.maintenanceIntervalSeconds,
        pollingIntervalSeconds: c.pollingIntervalSeconds,
      },
      (id) => this.running.has(id),
      (error) => this.warnings(`cluster: queue: ${String((error as Error)?.message ?? error)}`),
    ))
    await boss.start()
    await ensureQueue(boss, this.names, {
      expireInSeconds: c.jobTimeoutSeconds,
      retryLimit: c.retryLimit,
      retryDelaySeconds: c.retryDelaySeconds,
    })
    this.queue = new SessionQueue(pool, boss, this.names)
    this.listener = new ChannelListener(
      this.connectionString,
      this.names.jobsChannel,
      () => this.wakeLoops(),
      () => this.wakeLoops(),
      this.warnings,
    )
    await this.listener.start()
    if (this.stopping) return
    for (let i = 0; i < c.concurrency; i++) {
      const slot = { id: '', busy: false }
      slot.id = await boss.work<SessionJobData>(
        this.names.queue,
        { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: c.pollingIntervalSeconds },
        async ([job]) => {
          slot.busy = true
          try {
            await this.serve(job!)
          } finally {
            slot.busy = false
            // pg-boss sleeps out its polling interval after a job unless told otherwise: go straight on.
            boss.notifyWorker(slot.id)
          }
        },
      )
      this.loops.push(slot)
    }
    const beat = Math.max(250, Math.floor((c.handoverSeconds * 1000) / 3))
    this.timers.push(setInterval(() => void this.heartbeat(), beat))
    this.timers.push(setInterval(() => void this.sweep(), c.sweepIntervalMs))
    for (const timer of this.timers) timer.unref?.()
  }

  /** A job was enqueued: one idle loop of this process fetches (every process hears it, so one per process). */
  private wakeLoops(): void {
    if (this.stopping) return
    const idle = this.loops.find((loop) => !loop.busy)
    if (idle !== undefined) this.boss?.notifyWorker(idle.id)
  }

  private async serve(job: PgBoss.JobWithMetadata<SessionJobData>): Promise<void> {
    const session = job.data.session
    let markDone!: () => void
    const held: Running = {
      id: job.id,
      retryCount: job.retryCount,
      session,
      abort: new AbortController(),
      done: new Promise<void>((resolve) => (markDone = resolve)),
    }
    this.running.set(job.id, held)
    this.ctx.emit('cluster/job-started', { session, job: job.id, retry: job.retryCount })
    try {
      // No heartbeat here: the timer's next beat (a third of `handoverSeconds` away at most) is the job's first,
      // well before the sweep would take a job without one for abandoned.
      const served = await serveSession(
        {
          ctx: this.ctx,
          persistence: this.persistence,
          agentOptions: this.config.agent,
          stopping: () => this.stopping,
          lingerMs: this.config.lingerMs,
          maxJobMs: this.config.maxJobSeconds * 1_000,
          othersWaiting: () => this.queue!.jobsWaiting(WAITING_MAX_AGE_MS),
          warn: this.warnings,
        },
        session,
        held.abort.signal,
      )
      if (!this.running.has(job.id)) return // handed back by drain meanwhile
      if (this.disposing) {
        // The app went away under the agent (its turn ended `aborted`): the next worker continues it.
        this.running.delete(job.id)
        await this.boss?.fail(this.names.queue, job.id, { message: 'handed back: the worker was disposed' })
        this.emitFinished(held, 'handed-back', false)
        return
      }
      const outcome = await this.finish(held)
      const continued = served.kind === 'served' && served.interruption !== undefined
      this.emitFinished(held, served.kind === 'missing' ? 'missing' : outcome, continued)
    } catch (error) {
      if (!this.running.has(job.id)) return
      // The loop fails the job (it is retried); the session's lease fences any writer that lingers.
      this.running.delete(job.id)
      this.warnings(`cluster: serving session "${session}" failed (the job is retried): ${String(error)}`)
      this.emitFinished(held, 'failed', false, error)
      throw error
    } finally {
      this.running.delete(job.id)
      markDone()
    }
  }

  /** Completes a job, retrying while the database is unreachable; expiry recovers one whose completion never lands. */
  private async finish(job: HeldJob): Promise<FinishOutcome> {
    for (let attempt = 0, pause = 50; ; attempt++, pause = Math.min(pause * 2, 2_000)) {
      try {
        return await this.queue!.finish(job)
      } catch (error) {
        if (attempt >= 20) throw error
        this.warnings(`cluster: completing the job of session "${job.session}" failed (retrying): ${String(error)}`)
        await new Promise((resolve) => setTimeout(resolve, pause))
      }
    }
  }

  private emitFinished(job: HeldJob, outcome: JobOutcome, continued: boolean, error?: unknown): void {
    const payload: JobFinishedPayload = {
      session: job.session,
      job: job.id,
      retry: job.retryCount,
      outcome,
      continued,
      ...(error === undefined ? {} : { error }),
    }
    this.ctx.emit('cluster/job-finished', payload)
  }

  private async heartbeat(): Promise<void> {
    if (this.queue === undefined || this.running.size === 0) return
    try {
      const lost = await this.queue.heartbeat([...this.running.values()], this.config.handoverSeconds)
      for (const id of lost) {
        const job = this.running.get(id)
        if (job !== undefined)
          this.warnings(`cluster: the job of session "${job.session}" was retried elsewhere while this worker ran it`)
      }
    } catch (error) {
      this.warnings(`cluster: heartbeat failed (retrying): ${String(error)}`)
    }
  }

  private async sweep(): Promise<void> {
    if (this.queue === undefined || this.stopping) return
    try {
      await this.queue.sweep(this.config.handoverSeconds, this.config.jobTimeoutSeconds)
    } catch (error) {
      this.warnings(`cluster: the sweep failed (retrying): ${String(error)}`)
    }
  }

  protected override async stop(): Promise<void> {
    this.stopping = true
    this.disposing = true
    for (const timer of this.timers) clearInterval(timer)
    await this.ready.catch(() => undefined)
    for (const { id } of this.loops) await this.boss?.offWork({ id }).catch(() => undefined)
    for (const job of this.running.values()) job.abort.abort(new Error('cluster: the worker stopped'))
    // Jobs end at their session's next quiet moment; an app disposed without drain() does not wait long for them.
    await Promise.race([
      Promise.all([...this.running.values()].map((job) => job.done)),
      new Promise((resolve) => setTimeout(resolve, 10_000).unref?.()),
    ])
    await this.listener?.close()
    await this.boss?.stop({ graceful: false, close: false, wait: true }).catch(() => undefined)
    await this.pool?.end().catch(() => undefined)
  }
}
