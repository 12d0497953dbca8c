import type { Session, SessionEvent } from '@bridle/session'
import { appendFile, isRollbackFailure, publishFile } from './file-writer.js'
import type { FsLayer } from './fs-layer.js'
import type { IdChain } from './id-chain.js'
import { encodeAppend, encodeNewLog, type StoredMeta } from './line-format.js'
import { WriteBehindQueue } from './write-behind.js'

/** What a `LiveBinding` needs from the backend that owns it. */
export interface BindingContext {
  readonly fs: FsLayer
  readonly root: string
  readonly chain: IdChain
  readonly delayMs: number
  readonly warn: (message: string) => void
}

/** Where a binding starts: a fresh session, or one whose first `cursor` events are already durable on disk. */
export interface BindingStart {
  readonly path: string
  readonly meta: StoredMeta
  readonly cursor: number
  readonly materialized: boolean
  /** For a materialized sealed log, the running CRC of the whole file; `undefined` for a log without checksums. */
  readonly running?: number
}

/**
 * The persistence state of one live session (docs/persistence.md#binding-live-sessions): its durable `cursor`, whether
 * its file exists, its write-behind queue, and the sticky initialization and poisoning errors. Every durable write runs
 * on the id chain. Events reach the queue in seq order through `admit`.
 */
export class LiveBinding {
  readonly queue: WriteBehindQueue<SessionEvent>
  /** Pending initialization (adoption); writes and flushes wait for it. */
  init: Promise<void> = Promise.resolve()
  /** Set when initialization failed: every later write and flush rejects with it. */
  sticky: unknown
  /** Set when a failed append could not be rolled back. */
  poisoned: unknown
  /** True until the microtask after the binding was created (see `JsonlBackend.release`). */
  fresh = true
  private abandoned = false
  private readonly path: string
  private readonly meta: StoredMeta
  private cursor: number
  private materialized: boolean
  /** The running CRC at the end of the file (sealed logs); appends continue the chain from it. */
  private running: number | undefined
  /** The next seq to hand to the queue. */
  private queuedThrough: number

  constructor(
    readonly session: Session,
    start: BindingStart,
    private readonly ctx: BindingContext,
  ) {
    this.path = start.path
    this.meta = start.meta
    this.cursor = start.cursor
    this.materialized = start.materialized
    this.running = start.running
    this.queuedThrough = start.cursor
    this.queue = new WriteBehindQueue<SessionEvent>({
      delayMs: ctx.delayMs,
      write: (batch) => this.writeBatch(batch),
      onBackgroundFailure: (error) =>
        ctx.warn(
          `session-jsonl: background write for session "${session.id}" failed (buffered events retained): ${String(error)}`,
        ),
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

  /** How many events are durable on disk. */
  get durableCount(): number {
    return this.cursor
  }

  /**
   * Re-bases the binding after a successful adoption: the first `cursor` live events are already stored, and the
   * file's running CRC is `running` (`undefined` for a log without checksums).
   */
  adopted(cursor: number, running: number | undefined): void {
    this.cursor = cursor
    this.running = running
    this.materialized = true
    if (this.queuedThrough < cursor) this.queuedThrough = cursor
  }

  /**
   * Queues `event` (and any live event before it that was not queued yet), in seq order. Events already durable or
   * already queued are skipped, so a store that replays an event cannot duplicate a seq.
   */
  admit(event: SessionEvent): void {
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
      try {
        if (!this.materialized) {
          const encoded = encodeNewLog(this.meta, events)
          await publishFile(this.ctx.fs, this.ctx.root, this.path, this.session.id, encoded.bytes)
          this.materialized = true
          this.running = encoded.running
        } else {
          const encoded = encodeAppend(events, this.running)
          await appendFile(this.ctx.fs, this.path, encoded.bytes)
          this.running = encoded.running
        }
      } catch (error) {
        if (isRollbackFailure(error)) this.poisoned = error
        throw error
      }
      this.cursor += events.length
    })
  }
}
