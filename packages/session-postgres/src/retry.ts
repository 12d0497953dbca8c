/**
 * Retries of sessions whose writes found the database unreachable: one timer per session, doubling from 50 ms up to
 * 2 s while `attempt(id)` answers `false` (still unreachable). The timers keep the process alive: unwritten events
 * are a reason to stay. A restart of the database is routine where several
 * workers share one, so the backend keeps trying instead of waiting for the next event or flush.
 */
export class RetryTimers {
  private readonly timers = new Map<string, { timer: ReturnType<typeof setTimeout>; delayMs: number }>()
  private readonly delays = new Map<string, number>()

  constructor(private readonly attempt: (id: string) => Promise<boolean>) {}

  /** Schedules the next retry of `id` (no-op when one is already scheduled). */
  schedule(id: string): void {
    if (this.timers.has(id)) return
    const delayMs = Math.min((this.delays.get(id) ?? 25) * 2, 2_000)
    this.delays.set(id, delayMs)
    const timer = setTimeout(() => {
      this.timers.delete(id)
      void this.attempt(id).then((done) => {
        if (done) this.delays.delete(id)
        else this.schedule(id)
      })
    }, delayMs)
    this.timers.set(id, { timer, delayMs })
  }

  /** Cancels the retries of `id`. */
  cancel(id: string): void {
    const entry = this.timers.get(id)
    if (entry !== undefined) clearTimeout(entry.timer)
    this.timers.delete(id)
    this.delays.delete(id)
  }

  cancelAll(): void {
    for (const id of [...this.timers.keys()]) this.cancel(id)
  }
}
