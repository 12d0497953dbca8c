import {
  createSessionPreparation,
  type Session,
  type SessionInspection,
  type SessionPreparation,
  type SessionStore,
} from '@bridle/session'
import { BindingRegistry, type PreparedSession, storedMetaOf } from '@bridle/session-jsonl'
import type { PoolLike, Tables } from './database.js'
import { type Leases, LeaseKeeper } from './lease.js'
import { LiveBinding, type BindingStart } from './live-binding.js'
import { MessageDelivery, type AgentLike } from './messages.js'
import { NotificationListener, MESSAGE, RELEASE } from './notifications.js'
import type { SessionReader } from './reader.js'
import { RetryTimers } from './retry.js'
import { adoptStored, commitRepair, type RecoveryContext } from './recovery.js'
import type { WriteContext } from './writer.js'

/** Everything a `PostgresBackend` is built from. */
export interface PostgresBackendOptions {
  readonly pool: PoolLike
  readonly tables: Tables
  readonly reader: SessionReader
  readonly leases: Leases
  readonly channel: string
  /** Resolves once the schema is migrated; every database operation waits for it. */
  readonly ready: Promise<void>
  /** The key of the process-wide teardown table (one per database and schema). */
  readonly teardownKey: string
  readonly writeBatchMaxDelayMs: number
  readonly leaseWaitMs: number
  readonly extraEventTypes: ReadonlySet<string>
  readonly sessions: SessionStore
  readonly agentOf: (id: string) => AgentLike | undefined
  readonly warn: (message: string) => void
}

interface PreparedEntry extends PreparedSession {
  readonly token: number
}

/**
 * The PostgreSQL backend without the cordis wiring: binds live sessions to their rows (the session-jsonl binding
 * rules, with a lease per written session), answers the store events, commits repairs under a lease, and delivers
 * posted messages to the sessions it holds. `SessionPostgres` wraps it as `ctx.sessionPersistence`.
 */
export class PostgresBackend extends BindingRegistry<LiveBinding, PreparedEntry> {
  readonly listener: NotificationListener
  readonly delivery: MessageDelivery
  private readonly o: PostgresBackendOptions
  private readonly write: WriteContext
  private readonly recovery: RecoveryContext
  private readonly keeper: LeaseKeeper
  private readonly retries: RetryTimers

  constructor(options: PostgresBackendOptions) {
    super({
      plugin: 'session-postgres',
      teardownKey: options.teardownKey,
      extraEventTypes: options.extraEventTypes,
      sessions: options.sessions,
      warn: options.warn,
    })
    this.o = options
    this.write = {
      pool: options.pool,
      tables: options.tables,
      owner: options.leases.owner,
      leaseMs: options.leases.leaseMs,
    }
    this.recovery = { reader: options.reader, leases: options.leases, write: this.write, warn: options.warn }
    this.keeper = new LeaseKeeper(
      options.leases,
      (id, token) =>
        options.warn(
          `session-postgres: session "${id}" lost its lease (fencing token ${token}) to another process; its next write will be refused`,
        ),
      (error) => options.warn(`session-postgres: renewing leases failed (retrying): ${String(error)}`),
    )
    this.retries = new RetryTimers((id) => this.retryWrite(id))
    this.listener = new NotificationListener(
      options.pool,
      options.channel,
      (payload) => {
        if (payload.startsWith(MESSAGE)) void this.delivery.request(payload.slice(MESSAGE.length))
      },
      () => {
        for (const id of this.bindings.keys()) void this.delivery.request(id)
      },
      options.warn,
    )
    this.delivery = new MessageDelivery(
      options.pool,
      options.tables,
      (id) => this.bindings.get(id),
      options.agentOf,
      options.warn,
    )
  }

  // ---- binding live sessions ----

  protected override claim(session: Session, entry: PreparedEntry): void {
    const { meta, cursor, token } = entry
    const binding = this.bind(session, { meta, cursor, materialized: true, token })
    binding.admitAll()
    this.writeNow(binding)
  }

  /** Flushes the session, then gives back its lease. */
  protected override retire(binding: LiveBinding): Promise<void> {
    return binding.flush().then(() => this.releaseLease(binding))
  }

  protected override forget(id: string): void {
    this.retries.cancel(id)
  }

  private bind(session: Session, start: BindingStart): LiveBinding {
    const binding = new LiveBinding(session, start, {
      write: this.write,
      chain: this.chain,
      delayMs: this.o.writeBatchMaxDelayMs,
      warn: this.o.warn,
      leased: (b, token) => this.leased(b, token),
      unavailable: (b) => this.retries.schedule(b.session.id),
    })
    // Nothing is written before the schema exists; a failed migration fails every write with its error.
    binding.init = this.o.ready
    this.bindings.set(session.id, binding)
    if (start.token !== undefined) this.leased(binding, start.token)
    return binding
  }

  /** A binding holds a lease: keep it renewed, listen for posted messages, and deliver what is waiting. */
  private leased(binding: LiveBinding, token: number): void {
    this.keeper.hold(binding.session.id, token)
    const id = binding.session.id
    void this.listener.start().then(
      // a pass that read after LISTEN was active has seen every message no notification will announce
      () => this.delivery.request(id, this.listener.listeningSince),
      (error: unknown) =>
        this.o.warn(`session-postgres: cannot LISTEN for posted messages (retrying): ${String(error)}`),
    )
  }

  /**
   * A new session (nothing stored yet: it is published by its first batch, which fails if the id is taken), or one
   * that already holds events: a fork seed (published at once) or, when its id is stored, an adoption after a
   * plugin restart — the lease is taken, the stored cwd must equal the live one and the live events must reproduce
   * the stored prefix.
   */
  protected override bindFresh(session: Session): void {
    const meta = storedMetaOf(session.header)
    const binding = this.bind(session, { meta, cursor: 0, materialized: false })
    if (session.events.length === 0) return
    const previous = this.teardownsInFlight()
    binding.init = this.chain
      .run(session.id, async () => {
        await previous
        await this.o.ready
        const adopted = await adoptStored(this.recovery, session)
        if (adopted === undefined) return
        binding.adopted(adopted.cursor, adopted.token)
        this.leased(binding, adopted.token)
      })
      .catch((error: unknown) => {
        binding.sticky = error
      })
    binding.admitAll()
    this.writeNow(binding)
  }

  /** Starts writing a binding's queued events at once (the first batch of a seeded or claimed session). */
  protected override writeNow(binding: LiveBinding): void {
    binding.flush().catch((error: unknown) => {
      if (binding.outage) return // warned once per outage; a retry is scheduled
      this.o.warn(
        `session-postgres: background write for session "${binding.session.id}" failed (buffered events retained): ${String(error)}`,
      )
    })
  }

  /** Retries the writes of a session whose last write found the database unreachable. */
  private async retryWrite(id: string): Promise<boolean> {
    const binding = this.bindings.get(id)
    if (binding === undefined || !binding.outage) return true
    try {
      await binding.flush()
      return true
    } catch {
      return !binding.outage || binding.poisoned !== undefined || binding.sticky !== undefined
    }
  }

  private async releaseLease(binding: LiveBinding): Promise<void> {
    const token = binding.token
    if (token === undefined) return
    this.keeper.drop(binding.session.id, token)
    if (binding.poisoned === undefined) await this.o.leases.release(binding.session.id, token)
  }

  // ---- load, prepare (the writing half of the read API) ----

  /** Commits any repair of a stored session under a lease (see `commitRepair`). Run it on the id chain. */
  commitRepair(id: string, token?: number): Promise<SessionInspection> {
    return commitRepair(this.recovery, id, token)
  }

  /**
   * Takes the session's lease (waiting up to `waitMs` for another holder), commits any repair, and prepares an
   * unpublished `Session` seeded with the log; the session appends `session/end-seed`. When that session is
   * announced this backend claims it and writes the marker. Disposing the preparation before that releases the
   * lease.
   */
  async prepare(id: string, signal?: AbortSignal, waitMs = this.o.leaseWaitMs): Promise<SessionPreparation> {
    let token: number | undefined
    const entry = await this.preparing(
      id,
      async () => {
        signal?.throwIfAborted()
        await this.quiet(id)
        token = await this.o.leases.acquire(id, {
          waitMs,
          signal,
          listen: () => this.listener.start(),
          wake: (sessionId) => this.listener.next(RELEASE + sessionId),
        })
        const held = token
        const view = await this.chain.run(id, () => this.commitRepair(id, held))
        signal?.throwIfAborted()
        const session = this.prepareSession(id, view.events, view.meta)
        return { session, meta: storedMetaOf(view.meta), cursor: view.events.length, token: held }
      },
      async () => {
        if (token !== undefined) await this.o.leases.release(id, token).catch(() => undefined)
      },
    )
    this.keeper.hold(id, entry.token)
    return createSessionPreparation(entry.session, () => this.release(id, entry))
  }

  /** Disposing a preparation (see `releasePrepared`); what it drops or abandons gives back its lease. */
  private release(id: string, entry: PreparedEntry): void {
    if (!this.releasePrepared(id, entry)) return
    this.keeper.drop(id, entry.token)
    void this.o.leases.release(id, entry.token).catch(() => undefined)
  }

  /** Waits until no writer of this process is still finishing `id`, and the schema is ready. */
  override async quiet(id: string): Promise<void> {
    await super.quiet(id)
    await this.o.ready
  }

  // ---- teardown ----

  /**
   * Stops admitting events, flushes every live session, gives back every lease, and stops listening. Rejects with
   * `AggregateError(errors, 'session-postgres dispose failed')` when any flush failed.
   */
  override dispose(): Promise<void> {
    this.retries.cancelAll()
    return super.dispose()
  }

  protected override async afterFlush(): Promise<void> {
    await this.delivery.idle()
    for (const entry of this.prepared.values()) {
      if (entry !== 'pending') await this.o.leases.release(entry.session.id, entry.token).catch(() => undefined)
    }
    await this.keeper.close()
    await this.listener.close()
  }
}
