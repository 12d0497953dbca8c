import type { Session, SessionEvent } from '@bridle/session'
import type { IdChain } from './id-chain.js'
import type { StoredMeta } from './line-format.js'
import { WriteBehindQueue } from './write-behind.js'

/** Where a binding starts: a fresh session, or one whose first `cursor` events are already stored. */
export interface BindingCoreStart {
  readonly meta: StoredMeta
  readonly cursor: number
  readonly materialized: boolean
}

/** What every binding needs from its backend: the id chain its writes run on and the write-behind window. */
export interface BindingCoreContext {
  readonly chain: IdChain
  readonly delayMs: number
}

/**
 * What every backend's binding of one live session shares, whatever it writes to (docs/persistence.md#binding-live-sessions):
 * the durable `cursor`, whether the stored log exists yet, the write-behind queue that events reach in seq order
 * through `admit`, and the sticky initialization and poisoning errors. Every durable write runs on the id chain; a
 * backend says how a batch is written (`write`) and what a background failure tells the user (`backgroundFailed`).
 */
export abstract class LiveBindingCore<C extends BindingCoreContext = BindingCoreContext> {
  readonly queue: WriteBehindQueue<SessionEvent>
  /** Pending initialization (adoption); writes and flushes wait for it. */
  init: Promise<void> = Promise.resolve()
  /** Set when initialization failed: every later write and flush rejects with it. */
  sticky: unknown
  /** Set when a write failed for good (an append that could not be rolled back, a lost lease): every later one rejects. */
  poisoned: unknown
  /** True until the microtask after the binding was created (a backend's `release` tells a rollback by it). */
  fresh = true
  /** Whether the stored log (file, row) exists; the first write creates it. */
  protected materialized: boolean
  /** The header the first write stores. */
  protected readonly meta: StoredMeta
  protected readonly ctx: C
  private abandoned = false
  private cursor: number
  /** The next seq to hand to the queue. */
  private queuedThrough: number

  constructor(
    readonly session: Session,
    start: BindingCoreStart,
    ctx: C,
  ) {
    this.ctx = ctx
    this.meta = start.meta
    this.cursor = start.cursor
    this.materialized = start.materialized
    this.queuedThrough = start.cursor
    this.queue = new WriteBehindQueue<SessionEvent>({
      delayMs: ctx.delayMs,
      write: (batch) => this.writeBatch(batch),
      onBackgroundFailure: (error) => this.backgroundFailed(error),
    })
    queueMicrotask(() => {
      this.fresh = false
    })
  }

  /**
   * Writes `events` durably: they continue the stored log exactly (the first has seq `durableCount`), and create it
   * when it is not `materialized` yet. `batch` is the whole batch they came from. Runs on the id chain.
   */
  protected abstract write(events: readonly SessionEvent[], batch: readonly SessionEvent[]): Promise<void>

  /** A write the queue ran in the background failed (its events stay buffered). */
  protected abstract backgroundFailed(error: unknown): void

  /** Sees each event `admit` is given, before the queue does (default: nothing). */
  protected observe(_event: SessionEvent): void {}

  /** Drops the binding without writing anything more (its creation was rolled back). */
  abandon(): void {
    this.abandoned = true
    this.queue.cancelTimer()
  }

  get isAbandoned(): boolean {
    return this.abandoned
  }

  /** How many events are stored. */
  get durableCount(): number {
    return this.cursor
  }

  /** Re-bases the binding after a successful adoption: the first `cursor` live events are already stored. */
  protected rebase(cursor: number, materialized: boolean): void {
    this.cursor = cursor
    this.materialized = materialized
    if (this.queuedThrough < cursor) this.queuedThrough = cursor
  }

  /**
   * Queues `event` (and any live event before it that was not queued yet), in seq order. Events already durable or
   * already queued are skipped, so a store that replays an event cannot duplicate a seq.
   */
  admit(event: SessionEvent): void {
    this.observe(event)
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

  /**
   * The flush barrier: waits for initialization, then drains the queue. Rejects with a sticky or poisoning error even
   * when nothing is queued.
   */
  async flush(): Promise<void> {
    await this.init
    if (this.sticky !== undefined) throw this.sticky
    if (this.poisoned !== undefined) throw this.poisoned
    await this.queue.flush()
  }

  /** Writes one batch durably on the id chain (docs/persistence.md#atomic-creation-and-rollback). */
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
      await this.write(events, batch)
      this.cursor += events.length
    })
  }
}
