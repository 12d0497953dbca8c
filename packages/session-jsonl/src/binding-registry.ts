import type { Session, SessionEvent, SessionHeader, SessionStore } from '@bridle/session'
import { IdChain } from './id-chain.js'
import type { StoredMeta } from './line-format.js'
import type { LiveBindingCore } from './live-binding-core.js'
import { UndeclaredTypeWarning } from './live-sessions.js'
import { storedMetaOf } from './stored-meta.js'
import { teardownsSettled, trackTeardown } from './teardowns.js'

/** What a registry is built from. */
export interface BindingRegistryOptions {
  /** The plugin name that starts every warning (`session-jsonl`, `session-postgres`). */
  readonly plugin: string
  /** The key of the process-wide teardown table: one per place sessions are stored (a root, a schema). */
  readonly teardownKey: string
  readonly extraEventTypes: ReadonlySet<string>
  /** The session store of the backend's own context. */
  readonly sessions: SessionStore
  readonly warn: (message: string) => void
}

/** A prepared session waiting to be announced: what its binding will start from. */
export interface PreparedSession {
  readonly session: Session
  readonly meta: StoredMeta
  /** How many of the session's events are stored (the repaired log). */
  readonly cursor: number
}

/**
 * What every durable backend does with the live sessions of its store, whatever it writes to
 * (docs/persistence.md#binding-live-sessions): one binding per session id, claims of prepared sessions, the
 * store's event, flush and dispose hooks, the one-preparation-per-id rule, and the teardown that flushes every
 * binding. A backend says how a session is bound (`bindFresh`, `claim`), written at once (`writeNow`) and
 * retired (`retire`).
 */
export abstract class BindingRegistry<B extends LiveBindingCore, P extends PreparedSession> {
  readonly chain = new IdChain()
  readonly bindings = new Map<string, B>()
  protected readonly prepared = new Map<string, P | 'pending'>()
  protected readonly sessions: SessionStore
  protected readonly warn: (message: string) => void
  /** False once teardown started: no new binding, no new event. */
  protected admitting = true
  private readonly retiring = new Map<string, Promise<void>>()
  private readonly undeclared: UndeclaredTypeWarning
  private readonly plugin: string
  private readonly teardownKey: string

  constructor(options: BindingRegistryOptions) {
    this.plugin = options.plugin
    this.teardownKey = options.teardownKey
    this.sessions = options.sessions
    this.warn = options.warn
    this.undeclared = new UndeclaredTypeWarning(options.plugin, options.extraEventTypes, options.warn)
  }

  /** Binds a session that was not prepared here; `veto` says whether a refusal may throw (`session/created`). */
  protected abstract bindFresh(session: Session, veto: boolean): void

  /** Binds a prepared session that was just announced and starts writing it. */
  protected abstract claim(session: Session, entry: P): void

  /** Starts writing a binding's queued events at once (the first batch of a seeded or claimed session). */
  protected abstract writeNow(binding: B): void

  /** Flushes a binding for the last time (a backend may give back what it holds after the flush). */
  protected retire(binding: B): Promise<void> {
    return binding.flush()
  }

  /** Forgets what a backend keeps per session besides its binding (called once the session is retired). */
  protected forget(_id: string): void {}

  /** Binds every session already live in the store (a plugin restart). */
  bindExisting(): void {
    for (const session of this.sessions.list()) if (!this.bindings.has(session.id)) this.bindFresh(session, false)
  }

  /** `session/created`: claims a prepared session or binds a new one. */
  onCreated(session: Session): void {
    if (!this.admitting) return
    const prepared = this.prepared.get(session.id)
    if (prepared !== undefined && prepared !== 'pending' && prepared.session === session) {
      this.prepared.delete(session.id)
      this.claim(session, prepared)
      return
    }
    this.bindFresh(session, true)
  }

  /** `session/event`: queues the committed event on its session's write-behind window. */
  onEvent(session: Session, event: SessionEvent): void {
    if (!this.admitting) return
    const binding = this.bindingOf(session)
    if (binding === undefined) return
    this.undeclared.check(session, event)
    binding.admit(event)
  }

  /** `session/flush`: the barrier of a bound session (undefined when this backend does not own it). */
  onFlush(session: Session): Promise<void> | undefined {
    return this.bindingOf(session)?.flush()
  }

  /** `session/disposed`: retires the session, then releases its state; a failure is logged. */
  onDisposed(session: Session): void {
    const binding = this.bindingOf(session)
    if (binding === undefined) return
    const retire = this.retire(binding)
      .catch((error: unknown) =>
        this.warn(`${this.plugin}: session "${session.id}" retirement failed: ${String(error)}`),
      )
      .finally(() => {
        binding.queue.cancelTimer()
        this.forget(session.id)
        if (this.bindings.get(session.id) === binding) this.bindings.delete(session.id)
        if (this.retiring.get(session.id) === retire) this.retiring.delete(session.id)
      })
    this.retiring.set(session.id, retire)
  }

  private bindingOf(session: Session): B | undefined {
    const binding = this.bindings.get(session.id)
    return binding?.session === session ? binding : undefined
  }

  /**
   * Runs `prepare` as the one outstanding preparation of `id` and records what it returns, so that announcing the
   * session claims it. Refused while the session is live or another preparation of it is outstanding. When `prepare`
   * fails, `undo` runs after the preparation is dropped, before the error is rethrown.
   */
  protected async preparing(id: string, prepare: () => Promise<P>, undo?: () => Promise<void>): Promise<P> {
    if (this.sessions.get(id) !== undefined) throw new Error(`cannot prepare session "${id}" while it is live`)
    if (this.prepared.has(id))
      throw new Error(`cannot prepare session "${id}" while another preparation is outstanding`)
    this.prepared.set(id, 'pending')
    let entry: P
    try {
      entry = await prepare()
    } catch (error) {
      if (this.prepared.get(id) === 'pending') this.prepared.delete(id)
      await undo?.()
      throw error
    }
    this.prepared.set(id, entry)
    return entry
  }

  /** The store's unpublished session of `id`, seeded with a stored log; it appends `session/end-seed`. */
  protected prepareSession(id: string, events: readonly SessionEvent[], header: SessionHeader): Session {
    const meta = storedMetaOf(header)
    return this.sessions.prepare(id, {
      seed: events,
      meta: {
        createdAt: meta.createdAt,
        cwd: meta.cwd,
        parentSession: meta.parentSession,
        seedLength: meta.seedLength,
      },
      seedSource: 'persistence',
    })
  }

  /**
   * Disposing a preparation: an unclaimed one is dropped. One that was claimed in this same synchronous run but is
   * no longer live (its announce threw and it was detached) is abandoned, so nothing beyond the repair is written.
   * True when the preparation was dropped or abandoned.
   */
  protected releasePrepared(id: string, entry: P): boolean {
    if (this.prepared.get(id) === entry) {
      this.prepared.delete(id)
      return true
    }
    const binding = this.bindings.get(id)
    if (binding?.session === entry.session && binding.fresh && this.sessions.get(id) !== entry.session) {
      binding.abandon()
      this.bindings.delete(id)
      return true
    }
    return false
  }

  /**
   * Waits until no writer of this process is still finishing `id`: its retirement here, or the teardown of an
   * earlier instance of this plugin over the same storage.
   */
  async quiet(id: string): Promise<void> {
    await this.retiring.get(id)
    await teardownsSettled(this.teardownKey)
  }

  /** What adoption waits for: the teardowns in flight over the same storage (a plugin restart). */
  protected teardownsInFlight(): Promise<void> {
    return teardownsSettled(this.teardownKey)
  }

  /**
   * Stops admitting events, flushes every live session and waits for every id chain. Rejects with
   * `AggregateError(errors, '<plugin> dispose failed')` when any flush failed.
   */
  dispose(): Promise<void> {
    const teardown = this.teardown()
    trackTeardown(this.teardownKey, teardown)
    return teardown
  }

  /** Releases what a backend holds beyond its bindings, once they are flushed and every id chain is idle. */
  protected async afterFlush(): Promise<void> {}

  private async teardown(): Promise<void> {
    this.admitting = false
    const errors: unknown[] = []
    await Promise.all(
      [...this.bindings.values()].map((binding) =>
        this.retire(binding).catch((error: unknown) => {
          errors.push(error)
        }),
      ),
    )
    await Promise.all(this.retiring.values())
    await this.chain.idle()
    await this.afterFlush()
    for (const binding of this.bindings.values()) binding.queue.cancelTimer()
    if (errors.length > 0) throw new AggregateError(errors, `${this.plugin} dispose failed`)
  }
}
