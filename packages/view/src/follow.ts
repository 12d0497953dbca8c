import type { ViewSource } from './source.js'

/** What changed in the store since the last look. */
export type StoreChange =
  /** The follower has its baseline: a page that (re)reads now misses no change. */
  { kind: 'ready' } | { kind: 'sessions' } | { kind: 'session'; id: string }

export type ChangeListener = (change: StoreChange) => void

/**
 * Follows the backend while anyone listens: polls `listSnapshots` every `intervalMs` (the backend-independent
 * change marker: any append changes a session's revision) and reports each session whose revision moved, and
 * the list itself when a session appeared, vanished or moved. Polling stops when the last listener leaves.
 */
export class StoreFollower {
  private readonly listeners = new Set<ChangeListener>()
  /** Listeners still waiting for `ready`. */
  private readonly waiting = new Set<ChangeListener>()
  private known: Map<string, string> | undefined
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private closed = false

  constructor(
    private readonly source: ViewSource,
    private readonly intervalMs = 250,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener)
    if (this.known !== undefined) queueMicrotask(() => this.listeners.has(listener) && listener({ kind: 'ready' }))
    else this.waiting.add(listener)
    if (this.listeners.size === 1) this.schedule(0)
    return () => {
      this.listeners.delete(listener)
      this.waiting.delete(listener)
      if (this.listeners.size === 0) this.stop()
    }
  }

  private schedule(delay: number) {
    if (this.closed || this.timer !== undefined || this.listeners.size === 0) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.running = this.poll().finally(() => {
        this.running = undefined
        this.schedule(this.intervalMs)
      })
    }, delay)
  }

  private async poll() {
    let current: Map<string, string>
    try {
      current = new Map([...(await this.source.revisions())].map(([id, r]) => [id, r.revision]))
    } catch (error) {
      this.onError(error)
      return
    }
    const before = this.known
    this.known = current
    for (const listener of [...this.waiting]) listener({ kind: 'ready' })
    this.waiting.clear()
    // the first look only sets the baseline; each page reads after its `ready`
    if (before === undefined) return
    let listChanged = before.size !== current.size
    for (const [id, revision] of current) {
      if (before.get(id) === revision) continue
      listChanged = true
      this.emit({ kind: 'session', id })
    }
    if (listChanged) this.emit({ kind: 'sessions' })
  }

  private emit(change: StoreChange) {
    for (const listener of [...this.listeners]) listener(change)
  }

  private stop() {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    this.known = undefined
  }

  /** Stops polling for good and waits for a poll in flight. */
  async close(): Promise<void> {
    this.closed = true
    this.listeners.clear()
    this.waiting.clear()
    this.stop()
    await this.running
  }
}
