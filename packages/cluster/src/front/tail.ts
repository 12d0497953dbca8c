import type pg from 'pg'
import { ChannelListener } from '../listener.js'
import type { ClusterNames } from '../names.js'
import { prepared } from '../prepared.js'

/** One stored event row: its seq and its JSON text exactly as written. */
export interface EventRow {
  readonly seq: number
  readonly type: string
  readonly body: string
}

/**
 * Reads sessions' committed events for the event streams, and wakes a stream when its session is written: one
 * LISTEN connection per front process on the channel the cluster's trigger notifies at every committed batch.
 * A stream also looks again every `fallbackMs`, in case a notification was lost to a reconnect.
 */
export class EventTail {
  private readonly waiters = new Map<string, Set<() => void>>()
  private readonly listener: ChannelListener

  constructor(
    private readonly pool: pg.Pool,
    connectionString: string,
    private readonly names: ClusterNames,
    warn: (message: string) => void,
    private readonly fallbackMs = 1_000,
  ) {
    this.listener = new ChannelListener(
      connectionString,
      names.writtenChannel,
      (id) => this.wake(id),
      () => {
        for (const id of [...this.waiters.keys()]) this.wake(id)
      },
      warn,
    )
  }

  start(): Promise<void> {
    return this.listener.start()
  }

  close(): Promise<void> {
    for (const id of [...this.waiters.keys()]) this.wake(id)
    return this.listener.close()
  }

  /** Committed events of `id` from seq `from` on, at most `limit`, in seq order. */
  async read(id: string, from: number, limit = 500): Promise<EventRow[]> {
    const { rows } = await this.pool.query(
      prepared(
        `SELECT seq, body FROM ${this.names.eventsTable} WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3`,
        [id, from, limit],
      ),
    )
    return rows.map((row: { seq: number; body: string }) => ({
      seq: row.seq,
      body: row.body,
      // Bodies are the events' JSON as appended, which puts `type` first; parse only what does not match.
      type: /^\{"type":"([^"\\]*)"/.exec(row.body)?.[1] ?? String((JSON.parse(row.body) as { type?: unknown }).type),
    }))
  }

  /**
   * A wait for `id`'s next write: `written` resolves when `id` is written, after `fallbackMs`, or on `cancel()`.
   * Take it before reading, so a write that commits after the read's snapshot always ends the wait.
   */
  waitFor(id: string): { readonly written: Promise<void>; cancel(): void } {
    let done!: () => void
    const written = new Promise<void>((resolve) => {
      let set = this.waiters.get(id)
      if (set === undefined) this.waiters.set(id, (set = new Set()))
      const waiting = set
      done = () => {
        clearTimeout(timer)
        waiting.delete(done)
        if (waiting.size === 0 && this.waiters.get(id) === waiting) this.waiters.delete(id)
        resolve()
      }
      const timer = setTimeout(done, this.fallbackMs)
      waiting.add(done)
    })
    return { written, cancel: done }
  }

  private wake(id: string): void {
    for (const done of [...(this.waiters.get(id) ?? [])]) done()
  }
}
