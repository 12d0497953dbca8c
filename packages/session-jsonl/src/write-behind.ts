/** The callbacks a `WriteBehindQueue` drives. */
export interface WriteBehindOptions<E> {
  /** The fixed window length in milliseconds (`writeBatchMaxDelayMs`). */
  readonly delayMs: number
  /** Durably writes one contiguous batch; rejects if nothing of it may be considered written. */
  readonly write: (batch: readonly E[]) => Promise<void>
  /** Called once per failed background batch (the events are retained and automatic retry pauses). */
  readonly onBackgroundFailure: (error: unknown) => void
}

/**
 * The write-behind window of one live session (docs/persistence.md#write-behind).
 *
 * - The first event entering an idle queue (nothing pending, no timer) arms one timer of exactly `delayMs`; later
 *   events join that window and never reset or extend it.
 * - When the timer fires the whole pending prefix is written as one batch; if a write is still active the window is
 *   marked expired and its batch starts the moment that write settles.
 * - A failed background batch goes back to the front of the queue, the timer is cancelled and automatic writing
 *   pauses until the next event (which opens a fresh window) or a flush (which retries at once).
 * - `flush()` is a shared barrier that drains everything queued, including events admitted while it runs.
 */
export class WriteBehindQueue<E> {
  #pending: E[] = []
  #timer: ReturnType<typeof setTimeout> | undefined
  #active: Promise<void> | undefined
  #expired = false
  #paused = false
  #barrier: Promise<void> | undefined
  readonly #options: WriteBehindOptions<E>

  constructor(options: WriteBehindOptions<E>) {
    this.#options = options
  }

  /** Number of queued events that no write has taken yet (a failed batch counts again once it is requeued). */
  get pendingCount(): number {
    return this.#pending.length
  }

  /** True while nothing is queued, no timer is armed, no write is active and no barrier runs. */
  get idle(): boolean {
    return (
      this.#pending.length === 0 &&
      this.#timer === undefined &&
      this.#active === undefined &&
      this.#barrier === undefined
    )
  }

  /** Queues one event, arming the window timer if the queue was idle or paused after a failure. */
  push(event: E): void {
    const wasIdle = this.#pending.length === 0 && this.#timer === undefined
    this.#pending.push(event)
    if (this.#paused) {
      this.#paused = false
      this.#arm()
    } else if (wasIdle && !this.#expired) {
      this.#arm()
    }
  }

  /**
   * The flush barrier: cancels the timer, waits for an overlapping write, then writes batches until nothing is
   * pending. Concurrent callers share one barrier. Rejects with the first failure; the failed batch stays queued.
   * The barrier is closed before its promise settles, so a later event starts a new window.
   */
  flush(): Promise<void> {
    this.#barrier ??= this.#drain().finally(() => {
      this.#barrier = undefined
      this.#afterSettle()
    })
    return this.#barrier
  }

  /** Cancels the timer; used on teardown after a final flush. */
  cancelTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  async #drain(): Promise<void> {
    this.cancelTimer()
    this.#expired = false
    for (;;) {
      if (this.#active !== undefined) {
        await this.#active.catch(() => undefined)
        continue
      }
      if (this.#pending.length === 0) {
        this.#paused = false
        return
      }
      const batch = this.#pending.splice(0)
      const write = this.#run(batch)
      this.#active = write.then(
        () => undefined,
        () => undefined,
      )
      try {
        await write
      } catch (error) {
        // Paused like a failed background batch: a window that expired during the barrier must not retry on its own.
        this.#paused = true
        this.#expired = false
        this.cancelTimer()
        throw error
      } finally {
        this.#active = undefined
      }
    }
  }

  #arm(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      if (this.#active !== undefined || this.#barrier !== undefined) this.#expired = true
      else this.#startBackground()
    }, this.#options.delayMs)
    this.#timer.unref?.()
  }

  #startBackground(): void {
    this.#expired = false
    if (this.#pending.length === 0) return
    const batch = this.#pending.splice(0)
    this.#active = this.#run(batch).then(
      () => {
        this.#active = undefined
        this.#afterSettle()
      },
      (error: unknown) => {
        this.#active = undefined
        this.#paused = true
        this.#expired = false
        this.cancelTimer()
        this.#options.onBackgroundFailure(error)
      },
    )
  }

  /** Starts an expired window's batch once no write or barrier is in the way. */
  #afterSettle(): void {
    if (this.#expired && this.#active === undefined && this.#barrier === undefined) this.#startBackground()
  }

  /** Runs one write; on failure the batch goes back to the front of the queue, in order. */
  async #run(batch: E[]): Promise<void> {
    try {
      await this.#options.write(batch)
    } catch (error) {
      this.#pending = batch.concat(this.#pending)
      throw error
    }
  }
}
