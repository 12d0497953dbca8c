/**
 * `SessionStore` — the `ctx.sessions` service (docs/session-events.md#live-events-of-the-session-store): prepares
 * sessions, enters and announces them on the caller's context, publishes their appends to scope-filtered listeners,
 * flushes them, and forks them (`branch`).
 */
import type { Context } from 'cordis'
import {
  admittedListeners,
  dispatchContained,
  type EventArgs,
  type FailureReport,
  type Listener,
  ownedEffect,
  scopeOf,
  scopeTarget,
  settleAll,
  warnContained,
  HomeService,
} from '@bridle/scope'
import type { SessionEvent } from '../events/events.js'
import { Session } from './session.js'
import type { SessionPersistence } from './persistence.js'
import { PUBLISHER, PUBLISHING, type SessionPublisher } from './internal.js'
import { forkErrors, forkPrefix } from '../surface/fork.js'

declare module 'cordis' {
  interface Context {
    sessions: SessionStore
    /** Provided by a durable backend such as `@bridle/session-jsonl`; absent when sessions live only in memory. */
    sessionPersistence?: SessionPersistence
  }
  interface Events<C extends Context = Context> {
    /** A session entered the store and was announced. A synchronous throw vetoes `create`. */
    'session/created'(session: Session): void
    /** An event was committed to an attached session; `session.events.at(-1) === event`. */
    'session/event'(session: Session, event: SessionEvent): void
    /** A durability barrier: `ctx.sessions.flush(session)` awaits every listener. */
    'session/flush'(session: Session): Promise<void> | void
    /** An announced session left the store. */
    'session/disposed'(session: Session): void
  }
}

/** Optional header fields a caller may set when preparing a session. */
export interface SessionMeta {
  readonly createdAt?: number
  readonly cwd?: string
  readonly parentSession?: string
  readonly seedLength?: number
}

export interface PrepareSessionOptions {
  readonly seed?: readonly unknown[]
  readonly meta?: SessionMeta
  /** `'persistence'` adopts the seed in restore mode (`Session.fromRestore`). Default `'snapshot'`. */
  readonly seedSource?: 'snapshot' | 'persistence'
}

interface Entry {
  readonly session: Session
  readonly carrier: object
  announced: boolean
  busy: number
  detachPending: boolean
  gone: boolean
}

export class SessionStore extends HomeService {
  private readonly entries = new Map<string, Entry>()
  private counter = 0
  private readonly self: SessionStore
  /**
   * Builds an entry's publisher on the raw service. Its closures run on every append, and a `this` reached through
   * the cordis service proxy (`ctx.sessions.create(...)`) forks a shadow context on every property read.
   */
  private readonly publisherOf: (entry: Entry) => SessionPublisher

  constructor(ctx: Context) {
    super(ctx, 'sessions', undefined)
    this.self = this
    this.publisherOf = (entry) => this.publisher(entry)
  }

  /**
   * Builds an unpublished session. Without an id, mints `session-<n>` skipping taken ids: ids live in this store and,
   * when a persistence backend answers `isStored`, ids whose log is already stored (so running a script twice does
   * not collide with the first run's log). The header is `{version: 0, id, createdAt (default now)}` plus the defined
   * `meta` fields, validated by `validateSessionHeader`.
   */
  prepare(id?: string, opts: PrepareSessionOptions = {}): Session {
    if (id === undefined) {
      const persistence = this.home.get('sessionPersistence') as SessionPersistence | undefined
      do id = `session-${++this.counter}`
      while (this.entries.has(id) || persistence?.isStored?.(id) === true)
    } else if (this.entries.has(id)) {
      throw new Error(`session "${id}" already exists`)
    }
    const meta = opts.meta ?? {}
    const header: Record<string, unknown> = { version: 0, id, createdAt: meta.createdAt ?? Date.now() }
    for (const key of ['cwd', 'parentSession', 'seedLength'] as const)
      if (meta[key] !== undefined) header[key] = meta[key]
    return opts.seedSource === 'persistence'
      ? Session.fromRestore(id, opts.seed ?? [], header)
      : Session.create(id, opts.seed, header)
  }

  /**
   * Enters an unpublished session through the caller's context (its `@bridle/scope` scope becomes the dispatch
   * carrier) without announcing it. Returns an idempotent `detach`; a stale detach cannot remove a replacement.
   */
  enter(session: Session): () => void {
    return this.enterFrom(this.ctx, session)
  }

  /** Emits `session/created` for an entered session. A synchronous listener throw propagates. */
  announce(session: Session): void {
    const entry = this.entries.get(session.id)
    if (entry === undefined || entry.session !== session || entry.gone)
      throw new Error(`session "${session.id}" is not live in this store`)
    if (entry.announced) throw new Error(`session "${session.id}" was already announced`)
    entry.announced = true
    entry.busy++
    try {
      const listeners = this.resolve(entry, 'session/created', [session])
      dispatchContained(listeners, entry.carrier, [session], this.reportFor(entry, 'session/created'), { veto: true })
    } finally {
      entry.busy--
      this.settle(entry)
    }
  }

  /**
   * Prepares, enters and announces a session as an effect of the caller's context: disposing the calling plugin
   * detaches it. A synchronous `session/created` listener throw detaches the entry (emitting `session/disposed`)
   * and is rethrown. If a `session/created` listener disposes the calling plugin (a reload racing the create),
   * the detach deferred during the announce runs once it unwinds, with its `session/disposed`.
   */
  create(id?: string, opts?: PrepareSessionOptions): Session {
    const ctx = this.ctx
    const session = this.prepare(id, opts)
    ownedEffect(ctx, () => {
      const detach = this.enterFrom(ctx, session)
      try {
        this.announce(session)
      } catch (error) {
        detach()
        throw error
      }
      return detach
    })
    return session
  }

  /** The live session with this id, if any. */
  get(id: string): Session | undefined {
    return this.entries.get(id)?.session
  }

  /** Every live session, in insertion order, as a fresh array. */
  list(): Session[] {
    return Array.from(this.entries.values(), (entry) => entry.session)
  }

  /**
   * Runs every `session/flush` listener (sync throws become rejections) and waits for all to settle; rejects with
   * the first failure in registration order, else resolves `true` when at least one listener ran.
   */
  async flush(session: Session): Promise<boolean> {
    const entry = session === null || session === undefined ? undefined : this.entries.get(session.id)
    if (entry === undefined || entry.session !== session)
      throw new Error(`session "${session?.id}" is not live in this store`)
    return settleAll(this.resolve(entry, 'session/flush', [session]), entry.carrier, [session])
  }

  /**
   * Forks `source` at the inclusive seq `boundary` (default: its last seq) into a new live session seeded with that
   * prefix. Named `branch` because upstream cordis treats a service's `fork` method as a per-fork hook.
   */
  branch(source: string | Session, boundary?: number, childId?: string): Session {
    if (childId !== undefined && this.entries.has(childId)) throw forkErrors.exists(childId)
    const sourceId = typeof source === 'string' ? source : source?.id
    const entry = this.entries.get(sourceId)
    if (entry === undefined) throw forkErrors.notFound(String(sourceId))
    if (typeof source !== 'string' && entry.session !== source) throw forkErrors.notLive(sourceId)
    const live = entry.session
    const prefix = forkPrefix(live.id, live.events, boundary)
    const meta: SessionMeta = {
      ...(live.header.cwd !== undefined ? { cwd: live.header.cwd } : {}),
      parentSession: live.id,
      seedLength: prefix.length,
    }
    return this.create(childId, { seed: prefix, meta })
  }

  protected override stop(): void {
    for (const entry of [...this.entries.values()]) this.detach(entry)
  }

  private enterFrom(ctx: Context, session: Session): () => void {
    if (!(session instanceof Session)) throw new TypeError('sessions.enter expects a Session')
    if (this.entries.has(session.id)) throw new Error(`session "${session.id}" already exists`)
    if (session[PUBLISHER] !== undefined) throw new Error(`session "${session.id}" is already attached to a store`)
    const entry: Entry = {
      session,
      carrier: scopeTarget(this.self, scopeOf(ctx)),
      announced: false,
      busy: 0,
      detachPending: false,
      gone: false,
    }
    this.entries.set(session.id, entry)
    session[PUBLISHER] = this.publisherOf(entry)
    return () => this.detach(entry)
  }

  private publisher(entry: Entry): SessionPublisher {
    const { session } = entry
    const report = this.reportFor(entry, 'session/event')
    return {
      // Extension events (`AnySessionEvent`) reach listeners too; the event's declaration names the known ones.
      prepare: (event) => this.resolve(entry, 'session/event', [session, event as SessionEvent]),
      notify: (prepared, event) =>
        dispatchContained(prepared as readonly Listener[], entry.carrier, [session, event], report),
      settled: () => this.settle(entry),
    }
  }

  /** Snapshots the admitted listeners of `name` for the entry's carrier and emits `internal/event`. */
  private resolve<K extends 'session/created' | 'session/event' | 'session/flush' | 'session/disposed'>(
    entry: Entry,
    name: K,
    args: EventArgs<K>,
  ): readonly Listener[] {
    return admittedListeners(this.home, name, entry.carrier, args)
  }

  /** Warns `session "<id>": <name> listener threw|rejected: <error>` on the `session` logger. */
  private reportFor(entry: Entry, name: string): FailureReport {
    return (how, error) => this.warn(`session "${entry.session.id}": ${name} listener ${how}: ${String(error)}`)
  }

  /** Runs a detach that was deferred while an announce or append was being published. */
  private settle(entry: Entry): void {
    if (entry.detachPending && entry.busy === 0 && !entry.session[PUBLISHING]) this.detach(entry)
  }

  private detach(entry: Entry): void {
    if (entry.gone) return
    if (entry.busy > 0 || entry.session[PUBLISHING]) {
      entry.detachPending = true
      return
    }
    entry.gone = true
    const { session } = entry
    if (this.entries.get(session.id) === entry) this.entries.delete(session.id)
    session[PUBLISHER] = undefined
    if (entry.announced) this.announceDisposed(entry)
  }

  private announceDisposed(entry: Entry): void {
    const { session } = entry
    let listeners: readonly Listener[]
    try {
      listeners = this.resolve(entry, 'session/disposed', [session])
    } catch (error) {
      this.warn(`session "${session.id}": session/disposed dispatch threw: ${String(error)}`)
      return
    }
    dispatchContained(listeners, entry.carrier, [session], this.reportFor(entry, 'session/disposed'))
  }

  private warn(message: string): void {
    warnContained(this.home, 'session', message)
  }
}
