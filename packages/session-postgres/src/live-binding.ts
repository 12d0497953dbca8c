import type { Session, SessionEvent } from '@bridle/session'
import { WriteBehindQueue, type IdChain, type StoredMeta } from '@bridle/session-jsonl'
import { isUnavailable } from './database.js'
import { SessionStoreUnavailableError } from './errors.js'
import { append, FatalWriteError, ownPublication, publish, type WriteContext } from './writer.js'

/** What a binding needs from its backend. */
export interface BindingContext {
  readonly write: WriteContext
  readonly chain: IdChain
  readonly delayMs: number
  readonly warn: (message: string) => void
  /** The binding now holds the lease with `token` (publication or adoption): start renewing it. */
  readonly leased: (binding: LiveBinding, token: number) => void
  /** A write failed because the database was unreachable: schedule a retry of `binding`. */
  readonly unavailable: (binding: LiveBinding) => void
}

/** Where a binding starts: a new session, or one whose first `cursor` events are stored and whose lease it holds. */
export interface BindingStart {
  readonly meta: StoredMeta
  readonly cursor: number
  readonly materialized: boolean
  /** The fencing token of the lease this binding holds (a prepared or adopted session). */
  readonly token?: number
}

/**
 * The persistence state of one live session: its durable `cursor`, whether its row exists, the lease token it
 * writes with, its write-behind queue, the posted-message ids its log already holds, and the sticky errors (a failed
 * initialization, or a fatal write such as a lost lease). Every write runs on the id chain.
 */
export class LiveBinding {
  readonly queue: WriteBehindQueue<SessionEvent>
  /** Pending initialization (adoption); writes and flushes wait for it. */
  init: Promise<void> = Promise.resolve()
  /** Set when initialization failed: every later write and flush rejects with it. */
  sticky: unknown
  /** Set when a write was refused for good (lost lease, foreign rows): every later write and flush rejects with it. */
  poisoned: unknown
  /** True until the microtask after the binding was created (see `PostgresBackend.release`). */
  fresh = true
  /** The lease token, once the binding holds a lease. */
  token: number | undefined
  /** Posted-message ids already spliced into this session's log, with the seq of the splice. */
  readonly seen = new Map<string, number>()
  /** True while the last write failed because the database was unreachable (warned once per outage). */
  outage = false
  private abandoned = false
  private readonly meta: StoredMeta
  private cursor: number
  private materialized: boolean
  private queuedThrough: number

  constructor(
    readonly session: Session,
    start: BindingStart,
    private readonly ctx: BindingContext,
  ) {
    this.meta = start.meta
    this.cursor = start.cursor
    this.materialized = start.materialized
    this.queuedThrough = start.cursor
    this.token = start.token
    for (const event of session.events) this.noteSplice(event)
    this.queue = new WriteBehindQueue<SessionEvent>({
      delayMs: ctx.delayMs,
      write: (batch) => this.writeBatch(batch),
      onBackgroundFailure: (error) => this.backgroundFailed(error),
    })
    queueMicrotask(() => {
      this.fresh = false
    })
  }

  /** Drops the binding without writing anything more (its creation was rolled back). */
  abandon(): void {
    this.abandoned = true
    this.queue.cancelTimer()
  }

  get isAbandoned(): boolean {
    return this.abandoned
  }

  /** How many events are durable in the database. */
  get durableCount(): number {
    return this.cursor
  }

  /** Re-bases the binding after a successful adoption: the first `cursor` live events are stored, under `token`. */
  adopted(cursor: number, token: number | undefined): void {
    this.cursor = cursor
    this.materialized = token !== undefined
    this.token = token
    if (this.queuedThrough < cursor) this.queuedThrough = cursor
  }

  /** Queues `event` (and any live event before it not queued yet), in seq order; never the same seq twice. */
  admit(event: SessionEvent): void {
    this.noteSplice(event)
    if (event.seq < this.queuedThrough) return
    if (event.seq > this.queuedThrough) {
      const events = this.session.events
      for (let seq = this.queuedThrough; seq < event.seq; seq++) this.queue.push(events[seq]!)
    }
    this.queue.push(event)
    this.queuedThrough = event.seq + 1
  }

  /** Queues every live event past what is durable or queued (used when a binding starts). */
  admitAll(): void {
    const events = this.session.events
    for (let seq = this.queuedThrough; seq < events.length; seq++) this.queue.push(events[seq]!)
    this.queuedThrough = Math.max(this.queuedThrough, events.length)
  }

  /** The flush barrier: waits for initialization, then drains the queue; a sticky or poisoning error rejects. */
  async flush(): Promise<void> {
    await this.init
    if (this.sticky !== undefined) throw this.sticky
    if (this.poisoned !== undefined) throw this.poisoned
    await this.queue.flush()
  }

  private noteSplice(event: SessionEvent): void {
    if ((event.type as string) !== 'agent/inbox/spliced') return
    const inserted = (event.data as { inserted?: readonly { id?: unknown }[] } | null)?.inserted
    if (!Array.isArray(inserted)) return
    for (const message of inserted)
      if (typeof message?.id === 'string' && !this.seen.has(message.id)) this.seen.set(message.id, event.seq)
  }

  private backgroundFailed(error: unknown): void {
    if (error instanceof SessionStoreUnavailableError) return // warned once per outage; a retry is scheduled
    this.ctx.warn(
      `session-postgres: background write for session "${this.session.id}" failed (buffered events retained): ${String(error)}`,
    )
  }

  /** Writes one batch durably on the id chain. */
  private writeBatch(batch: readonly SessionEvent[]): Promise<void> {
    return this.ctx.chain.run(this.session.id, async () => {
      await this.init
      if (this.abandoned) return
      if (this.sticky !== undefined) throw this.sticky
      if (this.poisoned !== undefined) throw this.poisoned
      const events = batch.filter((event) => event.seq >= this.cursor)
      events.forEach((event, index) => {
        if (event.seq !== this.cursor + index) {
          throw new Error(
            `append seq mismatch for "${this.session.id}": expected ${this.cursor + index} at index ${index}, got ${event.seq}`,
          )
        }
      })
      if (events.length === 0) return
      try {
        if (!this.materialized) await this.publishFirst(events)
        else await append(this.ctx.write, this.session.id, this.token!, this.cursor, events)
      } catch (error) {
        if (error instanceof FatalWriteError) {
          this.poisoned = error.error
          throw error.error
        }
        if (isUnavailable(error)) {
          const unavailable = new SessionStoreUnavailableError(
            this.session.id,
            this.queue.pendingCount + batch.length,
            error,
          )
          if (!this.outage) this.ctx.warn(unavailable.message)
          this.outage = true
          this.ctx.unavailable(this)
          throw unavailable
        }
        throw error
      }
      if (this.outage)
        this.ctx.warn(`session-postgres: session "${this.session.id}" is written again; the database is back`)
      this.outage = false
      this.cursor += events.length
    })
  }

  private async publishFirst(events: readonly SessionEvent[]): Promise<void> {
    // 'exists' after a publication whose answer was lost (the server died right after committing) is our own row.
    if ((await publish(this.ctx.write, this.meta, events)) === 'exists') {
      const stored = await ownPublication(this.ctx.write, this.meta, events)
      if (stored === undefined) {
        const error = new Error(
          `session "${this.session.id}" already exists in the database; load/resume it instead of creating`,
        )
        this.sticky = error
        throw error
      }
      this.materialized = true
      this.token = 1
      this.ctx.leased(this, 1)
      if (stored < events.length) await append(this.ctx.write, this.session.id, 1, stored, events.slice(stored))
      return
    }
    this.materialized = true
    this.token = 1
    this.ctx.leased(this, 1)
  }
}
