import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { holdSecrets, holdUrlSecrets, type UserMessage } from '@bridle/llm'
import type {
  Session,
  SessionEvent,
  SessionHeader,
  SessionInspection,
  SessionLocation,
  SessionPersistence,
  SessionPreparation,
  SessionRawLog,
  SessionSnapshotInfo,
  SessionSummary,
} from '@bridle/session'
import { enterPrepared, listenToSessions, loadLive, registerCheckpoints } from '@bridle/session-jsonl'
import { HomeService, onUntraced, rawService } from '@bridle/scope'
import type { Context } from 'cordis'
import { PostgresBackend } from './backend.js'
import { Catalog } from './catalog.js'
import { Config, ConfigSchema, PLUGIN_NAME, type SessionPostgresConfig } from './config.js'
import { createPool, describeDatabase, tablesOf, type PoolLike, type Tables } from './database.js'
import { follow, type FollowOptions } from './follow.js'
import { type LeaseWaitOptions, Leases } from './lease.js'
import { assertPostable, postMessage, type AgentLike, type PostResult, type PostTarget } from './messages.js'
import { migrate } from './migrations.js'
import { channelOf } from './notifications.js'
import { SessionReader } from './reader.js'

/**
 * The `session-postgres` plugin: provides `ctx.sessionPersistence`, storing sessions in PostgreSQL with one fenced
 * writer per session and messages that reach an agent from any process. Load it with
 * `ctx.plugin(SessionPostgres, { connectionString })` after `SessionStore`.
 */
export class SessionPostgres extends HomeService<SessionPostgresConfig> implements SessionPersistence {
  static readonly inject = ['sessions']
  static readonly Config = Config
  static readonly ConfigSchema = ConfigSchema

  /** This writer's name in leases. */
  readonly ownerId: string
  /** Resolves once the schema exists at this build's version; rejects with the migration error. */
  readonly ready: Promise<void>
  protected readonly backend: PostgresBackend
  protected readonly pool: PoolLike
  protected readonly tables: Tables
  private readonly catalog: Catalog
  private readonly reader: SessionReader
  private readonly channel: string
  private readonly database: string
  private readonly ownsPool: boolean
  private readonly onPoolError: (error: Error) => void

  constructor(ctx: Context, config?: SessionPostgresConfig) {
    super(ctx, 'sessionPersistence', Config(config))
    const parsed = this.config
    const logger = ctx.logger(PLUGIN_NAME)
    const warn = (message: string) => logger.warn(message.replace(/%/g, '%%'))
    // the database password is a credential Bridle holds: filtered from every log and every output (docs/security.md)
    holdUrlSecrets(parsed.connectionString)
    holdSecrets(process.env.PGPASSWORD)
    this.ownsPool = parsed.pool === undefined
    this.pool = parsed.pool ?? createPool(parsed.connectionString, parsed.poolSize + 1)
    this.onPoolError = (error) => warn(`session-postgres: an idle database connection failed: ${String(error)}`)
    this.pool.on?.('error', this.onPoolError)
    this.tables = tablesOf(parsed.schema)
    this.channel = channelOf(parsed.schema)
    this.database = describeDatabase(this.pool, parsed.connectionString)
    this.ownerId = parsed.ownerId ?? `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`
    this.ready = migrate(this.pool, this.tables, parsed.schema)
    this.ready.catch((error: unknown) =>
      logger.error(`session-postgres: cannot prepare schema "${parsed.schema}": ${String(error)}`),
    )
    const locationOf = (id: string) => this.locationOf(id)
    const extraTypes = new Set(parsed.extraEventTypes)
    const reader = (this.reader = new SessionReader(this.pool, this.tables, locationOf, extraTypes))
    this.catalog = new Catalog(this.pool, this.tables, reader, locationOf, warn)
    this.backend = new PostgresBackend({
      pool: this.pool,
      tables: this.tables,
      reader,
      leases: new Leases(this.pool, this.tables, this.ownerId, parsed.leaseMs, this.channel),
      channel: this.channel,
      ready: this.ready,
      teardownKey: `${this.database}?schema=${parsed.schema}`,
      writeBatchMaxDelayMs: parsed.writeBatchMaxDelayMs,
      leaseWaitMs: parsed.leaseWaitMs,
      extraEventTypes: extraTypes,
      sessions: ctx.sessions,
      // read at every delivery pass: the loop as the object itself, not a traced read
      agentOf: (id) => rawService<{ get(id: string): AgentLike | undefined }>(ctx, 'agentLoop')?.get(id),
      warn,
    })
    const backend = this.backend
    listenToSessions(ctx, backend)
    // An agent is registered after its session is announced: deliver what waits for it once it exists.
    onUntraced(ctx, 'agent/session-start', ((payload: { agent?: { id: string } } | undefined) => {
      if (payload?.agent !== undefined) void backend.delivery.request(payload.agent.id)
    }) as never)
    if (parsed.checkpoints) registerCheckpoints(ctx)
    backend.bindExisting()
  }

  /** Where a session lives, for messages: `postgres://<host>:<port>/<db>?schema=<s>#<id>` (no credentials). */
  locationOf(id: string): string {
    return `${this.database}?schema=${this.config.schema}#${encodeURIComponent(id)}`
  }

  /** `{kind: 'postgres', path}` for a header (see `locationOf`); reads and creates nothing. Not an authorization. */
  locate(meta: SessionHeader): SessionLocation {
    return Object.freeze({ kind: 'postgres', path: this.locationOf(meta.id) })
  }

  /** Headers of every stored session, sorted by `createdAt` then id; refused headers are skipped with a warning. */
  async list(signal?: AbortSignal): Promise<readonly SessionHeader[]> {
    return Object.freeze((await this.listSnapshots(signal)).map((snapshot) => snapshot.meta))
  }

  /**
   * A summary of every stored session (header, event count, turns, last activity, model, first prompt), in `list()`
   * order: one query over the session rows, whose summary columns every write keeps current.
   */
  async summaries(signal?: AbortSignal): Promise<readonly SessionSummary[]> {
    await this.ready
    return this.catalog.summaries(signal)
  }

  /** The summary of one stored session (one row read), or `undefined` when it is absent or its header is refused. */
  async summary(id: string, signal?: AbortSignal): Promise<SessionSummary | undefined> {
    await this.ready
    return this.catalog.summary(id, signal)
  }

  /** `{meta, revision}` for every stored session; a revision changes on every append or repair. */
  async listSnapshots(signal?: AbortSignal): Promise<readonly SessionSnapshotInfo[]> {
    await this.ready
    return this.catalog.snapshots(signal)
  }

  /** The stored session as JSONL text (`{header, fileName, content}`); `undefined` when absent. */
  async readRaw(id: string, signal?: AbortSignal): Promise<SessionRawLog | undefined> {
    await this.backend.quiet(id)
    return this.catalog.raw(id, signal)
  }

  /**
   * A frozen `{meta, events}`: the live session, or the committed events plus closers (computed, never written),
   * with `recovery` saying which damaged rows a load would delete.
   */
  async inspect(id: string, signal?: AbortSignal): Promise<SessionInspection> {
    const live = this.ctx.sessions.get(id)
    if (live !== undefined) return Object.freeze({ meta: live.header, events: live.events })
    await this.backend.quiet(id)
    signal?.throwIfAborted()
    const { meta, events, recovery } = this.reader.validate(await this.reader.read(id))
    return Object.freeze(recovery === undefined ? { meta, events } : { meta, events, recovery })
  }

  /**
   * Live: flush and return a snapshot, refusing an open turn. Stored: commit any repair under the lease (refused
   * with `SessionLeasedError` while another process holds it) and return the balanced, frozen view.
   */
  async load(id: string): Promise<SessionInspection> {
    const live = this.ctx.sessions.get(id)
    if (live !== undefined) return loadLive(this.ctx.sessions, live)
    await this.backend.quiet(id)
    return this.backend.chain.run(id, () => this.backend.commitRepair(id))
  }

  /** Takes the lease, repairs, and prepares an unpublished session (`ctx.agentLoop.resume` uses this). */
  prepare(id: string, signal?: AbortSignal, options: LeaseWaitOptions = {}): Promise<SessionPreparation> {
    return this.backend.prepare(id, signal, options.waitMs)
  }

  /**
   * Prepares `id`, then enters and announces it on the caller's context (as `ctx.sessions.create` does) and returns
   * the live session; disposing the caller detaches it. If announcing throws, the preparation is disposed, its lease
   * released, and nothing beyond the repair is written.
   */
  async resume(id: string, signal?: AbortSignal, options: LeaseWaitOptions = {}): Promise<Session> {
    const preparation = await this.backend.prepare(id, signal, options.waitMs)
    return enterPrepared(this.ctx, preparation)
  }

  /**
   * Posts a message to a stored session from any process: stored durably, then delivered (through LISTEN/NOTIFY) to
   * the process that holds the session's lease, which splices it into the agent's inbox exactly once —
   * `next-turn` as `agent.followup`, `next-step` as `agent.steer`. Messages wait while no process serves the
   * session. Re-posting a message id is a no-op (`duplicate: true`).
   */
  async post(id: string, message: UserMessage, target: PostTarget = 'next-turn'): Promise<PostResult> {
    assertPostable(id, message, target)
    await this.ready
    return postMessage(this.pool, this.tables, this.channel, id, message, target)
  }

  /**
   * Resolves once a delivery pass for `id` whose read of the waiting messages was sent after `after` has finished
   * (never rejects): every message posted before `after` and still waiting is then spliced into this process's agent
   * of the session, if this process holds the session's lease and the agent is live (otherwise the messages keep
   * waiting). `after` is a `performance.now()` time, by default this call; a pass already in flight or done that read
   * after it serves the call without another read. A worker that resumed a session passes the time it began the
   * resume, to know its waiting input has arrived before it checks for idleness.
   */
  deliver(id: string, options: { readonly after?: number } = {}): Promise<void> {
    return this.backend.delivery.request(id, options.after)
  }

  /**
   * The committed events of a session as they are written, from `from` (default 0) on, until `signal` aborts. Polls
   * every `intervalMs` (default 200) while nothing new arrived; works against any process writing the session.
   */
  follow(id: string, options: FollowOptions = {}): AsyncIterable<SessionEvent> {
    return follow((from, limit) => this.ready.then(() => this.catalog.eventsFrom(id, from, limit)), options)
  }

  /**
   * Resolves once the plugin has stopped: every live session flushed, every lease given back, the LISTEN connection
   * and (when the plugin created it) the pool closed. Cordis does not wait for this when it disposes a plugin; a host
   * that exits right after disposing should.
   */
  whenStopped(): Promise<void> {
    return this.stopped
  }

  private markStopped!: () => void
  private readonly stopped = new Promise<void>((resolve) => (this.markStopped = resolve))

  protected override async stop(): Promise<void> {
    try {
      await this.backend.dispose()
    } finally {
      // A pool this plugin created keeps its error listener for good: pg-pool's end() resolves once its clients are
      // handed off, before their sockets have closed, and a server that shuts down then makes an idle one emit
      // 'error' on the pool, which would be unhandled. A pool the app passed in is the app's: it gets it back clean.
      if (this.ownsPool) await this.pool.end?.().catch(() => undefined)
      else this.pool.off?.('error', this.onPoolError)
      this.markStopped()
    }
  }
}
