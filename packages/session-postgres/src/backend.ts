import {
  createSessionPreparation,
  type Session,
  type SessionEvent,
  type SessionInspection,
  type SessionPreparation,
  type SessionStore,
} from '@bridle/session'
import {
  IdChain,
  storedMetaOf,
  teardownsSettled,
  trackTeardown,
  UndeclaredTypeWarning,
  type StoredMeta,
} from '@bridle/session-jsonl'
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

interface PreparedEntry {
  readonly session: Session
  readonly meta: StoredMeta
  readonly cursor: number
  readonly token: number
}

/**
 * The PostgreSQL backend without the cordis wiring: binds live sessions to their rows (the session-jsonl binding
 * rules, with a lease per written session), answers the store events, commits repairs under a lease, and delivers
 * posted messages to the sessions it holds. `SessionPostgres` wraps it as `ctx.sessionPersistence`.
 */
export class PostgresBackend {
  readonly chain = new IdChain()
  readonly bindings = new Map<string, LiveBinding>()
  readonly listener: NotificationListener
  readonly delivery: MessageDelivery
  private readonly o: PostgresBackendOptions
  private readonly write: WriteContext
  private readonly recovery: RecoveryContext
  private readonly keeper: LeaseKeeper
  private readonly retries: RetryTimers
  private readonly prepared = new Map<string, PreparedEntry | 'pending'>()
  private readonly retiring = new Map<string, Promise<void>>()
  private readonly undeclared: UndeclaredTypeWarning
  private admitting = true

  constructor(options: PostgresBackendOptions) {
    this.o = options
    this.undeclared = new UndeclaredTypeWarning('session-postgres', options.extraEventTypes, options.warn)
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

  /** Binds every session already live in the store (a plugin restart). */
  bindExisting(): void {
    for (const session of this.o.sessions.list()) if (!this.bindings.has(session.id)) this.bindFresh(session)
  }

  /** `session/created`: claims a prepared session or binds a new one. */
  onCreated(session: Session): void {
    if (!this.admitting) return
    const prepared = this.prepared.get(session.id)
    if (prepared !== undefined && prepared !== 'pending' && prepared.session === session) {
      this.prepared.delete(session.id)
      const binding = this.bind(session, {
        meta: prepared.meta,
        cursor: prepared.cursor,
        materialized: true,
        token: prepared.token,
      })
      binding.admitAll()
      this.writeNow(binding)
      return
    }
    this.bindFresh(session)
  }

  /** `session/event`: queues the committed event on its session's write-behind window. */
  onEvent(session: Session, event: SessionEvent): void {
    if (!this.admitting) return
    const binding = this.bindings.get(session.id)
    if (binding === undefined || binding.session !== session) return
    this.undeclared.check(session, event)
    binding.admit(event)
  }

  /** `session/flush`: the barrier of a bound session (undefined when this backend does not own it). */
  onFlush(session: Session): Promise<void> | undefined {
    const binding = this.bindings.get(session.id)
    if (binding === undefined || binding.session !== session) return undefined
    return binding.flush()
  }

  /** `session/disposed`: flushes the session, releases its lease, then forgets it; a failure is logged. */
  onDisposed(session: Session): void {
    const binding = this.bindings.get(session.id)
    if (binding === undefined || binding.session !== session) return
    const retire = binding
      .flush()
      .then(() => this.releaseLease(binding))
      .catch((error: unknown) =>
        this.o.warn(`session-postgres: session "${session.id}" retirement failed: ${String(error)}`),
      )
      .finally(() => {
        binding.queue.cancelTimer()
        this.retries.cancel(session.id)
        if (this.bindings.get(session.id) === binding) this.bindings.delete(session.id)
        if (this.retiring.get(session.id) === retire) this.retiring.delete(session.id)
      })
    this.retiring.set(session.id, retire)
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
      () => this.delivery.request(id),
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
  private bindFresh(session: Session): void {
    const meta = storedMetaOf(session.header)
    const binding = this.bind(session, { meta, cursor: 0, materialized: false })
    if (session.events.length === 0) return
    const previous = teardownsSettled(this.o.teardownKey)
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
  private writeNow(binding: LiveBinding): void {
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
    if (this.o.sessions.get(id) !== undefined) throw new Error(`cannot prepare session "${id}" while it is live`)
    if (this.prepared.has(id))
      throw new Error(`cannot prepare session "${id}" while another preparation is outstanding`)
    this.prepared.set(id, 'pending')
    let entry: PreparedEntry
    let token: number | undefined
    try {
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
      const meta = storedMetaOf(view.meta)
      const session = this.o.sessions.prepare(id, {
        seed: view.events,
        meta: {
          createdAt: meta.createdAt,
          cwd: meta.cwd,
          parentSession: meta.parentSession,
          seedLength: meta.seedLength,
        },
        seedSource: 'persistence',
      })
      entry = { session, meta, cursor: view.events.length, token }
    } catch (error) {
      if (this.prepared.get(id) === 'pending') this.prepared.delete(id)
      if (token !== undefined) await this.o.leases.release(id, token).catch(() => undefined)
      throw error
    }
    this.prepared.set(id, entry)
    this.keeper.hold(id, entry.token)
    return createSessionPreparation(entry.session, () => this.release(id, entry))
  }

  /**
   * Disposing a preparation: an unclaimed one is dropped and its lease released. One claimed in this same
   * synchronous run but no longer live (its announce threw) is abandoned, so nothing beyond the repair is written.
   */
  private release(id: string, entry: PreparedEntry): void {
    const giveBack = () => {
      this.keeper.drop(id, entry.token)
      void this.o.leases.release(id, entry.token).catch(() => undefined)
    }
    if (this.prepared.get(id) === entry) {
      this.prepared.delete(id)
      giveBack()
      return
    }
    const binding = this.bindings.get(id)
    if (binding?.session === entry.session && binding.fresh && this.o.sessions.get(id) !== entry.session) {
      binding.abandon()
      this.bindings.delete(id)
      giveBack()
    }
  }

  /** Waits until no writer of this process is still finishing `id` (its retirement, an earlier plugin instance). */
  async quiet(id: string): Promise<void> {
    await this.retiring.get(id)
    await teardownsSettled(this.o.teardownKey)
    await this.o.ready
  }

  // ---- teardown ----

  /**
   * Stops admitting events, flushes every live session, gives back every lease, and stops listening. Rejects with
   * `AggregateError(errors, 'session-postgres dispose failed')` when any flush failed.
   */
  dispose(): Promise<void> {
    const teardown = this.teardown()
    trackTeardown(this.o.teardownKey, teardown)
    return teardown
  }

  private async teardown(): Promise<void> {
    this.admitting = false
    this.retries.cancelAll()
    const errors: unknown[] = []
    await Promise.all(
      [...this.bindings.values()].map((binding) =>
        binding
          .flush()
          .then(() => this.releaseLease(binding))
          .catch((error: unknown) => {
            errors.push(error)
          }),
      ),
    )
    await Promise.all(this.retiring.values())
    await this.chain.idle()
    await this.delivery.idle()
    for (const binding of this.bindings.values()) binding.queue.cancelTimer()
    for (const entry of this.prepared.values()) {
      if (entry !== 'pending') await this.o.leases.release(entry.session.id, entry.token).catch(() => undefined)
    }
    await this.keeper.close()
    await this.listener.close()
    if (errors.length > 0) throw new AggregateError(errors, 'session-postgres dispose failed')
  }
}
