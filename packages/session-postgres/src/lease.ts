import type { PoolLike, Tables } from './database.js'
import { SessionLeasedError, type LeaseHolder } from './errors.js'
import { RELEASE } from './notifications.js'

/**
 * Session leases: one writer per session. A lease is a row state — owner, expiry (database clock, so machines never
 * compare their own clocks), and a fencing token that grows on every acquisition. Every write names the token it
 * holds; the database refuses a write whose token is no longer current, so a writer that lost its lease can never
 * interleave its events with the new owner's.
 */
export class Leases {
  constructor(
    private readonly pool: PoolLike,
    private readonly tables: Tables,
    readonly owner: string,
    readonly leaseMs: number,
    private readonly channel: string,
  ) {}

  /**
   * Takes the lease of an existing session when it is free or expired, bumping the fencing token. Resolves the new
   * token; rejects with `session "<id>" not found`, or with `SessionLeasedError` naming the holder when it is held
   * (after waiting up to `waitMs` for it to be released or to expire, re-checking at least every `pollMs`).
   */
  async acquire(id: string, options: AcquireOptions = {}): Promise<number> {
    const started = Date.now()
    const waitMs = options.waitMs ?? 0
    let listening = false
    for (;;) {
      options.signal?.throwIfAborted()
      const { rows } = await this.pool.query(
        `UPDATE ${this.tables.sessions}
            SET lease_owner = $2, lease_token = lease_token + 1, lease_expires = now() + $3 * interval '1 millisecond'
          WHERE id = $1 AND (lease_owner IS NULL OR lease_expires <= now())
          RETURNING lease_token`,
        [id, this.owner, this.leaseMs],
      )
      if (rows.length === 1) return Number(rows[0].lease_token)
      const holder = await this.holder(id)
      if (holder === 'missing') throw new Error(`session "${id}" not found`)
      if (holder === undefined) continue // released between the two statements: try again
      const waited = Date.now() - started
      const left = waitMs - waited
      if (left <= 0) throw new SessionLeasedError(id, holder.lease, waitMs > 0 ? waited : 0)
      if (!listening && options.listen !== undefined) {
        // A release sent before we listen is lost: listen first, then look again before sleeping.
        listening = true
        await options.listen().catch(() => undefined)
        continue
      }
      // Sleep until the lease would expire or a release wakes us — at most a second, in case a notification was
      // lost to a reconnect — and never past the caller's patience.
      const untilExpiry = Math.max(1, holder.remainingMs + 1)
      await sleepOrWake(Math.min(untilExpiry, left, 1_000), id, options)
    }
  }

  /** The current holder of `id` with the time left on its lease, `undefined` when free, `'missing'` when absent. */
  async holder(id: string): Promise<{ lease: LeaseHolder; remainingMs: number } | undefined | 'missing'> {
    const { rows } = await this.pool.query(
      `SELECT lease_owner, lease_token, (extract(epoch FROM lease_expires) * 1000)::float8 AS expires,
              (extract(epoch FROM lease_expires - now()) * 1000)::float8 AS remaining
         FROM ${this.tables.sessions} WHERE id = $1`,
      [id],
    )
    const row = rows[0]
    if (row === undefined) return 'missing'
    if (row.lease_owner === null || row.expires === null || row.remaining <= 0) return undefined
    return {
      lease: { owner: row.lease_owner, token: Number(row.lease_token), expiresAt: new Date(row.expires) },
      remainingMs: row.remaining,
    }
  }

  /** Gives a lease up (only if `token` still holds it) and wakes processes waiting for it. */
  async release(id: string, token: number): Promise<void> {
    await this.pool.query(
      `WITH r AS (
         UPDATE ${this.tables.sessions} SET lease_owner = NULL, lease_expires = NULL
          WHERE id = $1 AND lease_token = $2 AND lease_owner = $3 RETURNING id)
       SELECT pg_notify($4, $5) FROM r`,
      [id, token, this.owner, this.channel, RELEASE + id],
    )
  }

  /**
   * Extends every lease in `held` (id → token) by `leaseMs` from now. Resolves the ids whose lease this process
   * no longer holds (another process took it over).
   */
  async renew(held: ReadonlyMap<string, number>): Promise<string[]> {
    if (held.size === 0) return []
    const ids = [...held.keys()]
    const tokens = ids.map((id) => held.get(id)!)
    const { rows } = await this.pool.query(
      `UPDATE ${this.tables.sessions} s SET lease_expires = now() + $3 * interval '1 millisecond'
         FROM unnest($1::text[], $2::bigint[]) AS h(id, token)
        WHERE s.id = h.id AND s.lease_token = h.token AND s.lease_owner = $4
        RETURNING s.id`,
      [ids, tokens, this.leaseMs, this.owner],
    )
    const renewed = new Set(rows.map((row: { id: string }) => row.id))
    return ids.filter((id) => !renewed.has(id))
  }
}

/** How `acquire` waits for a held lease. */
/** Options of `prepare`/`resume` beyond the `SessionPersistence` contract. */
export interface LeaseWaitOptions {
  /** Wait up to this long for a lease another process holds (default: the `leaseWaitMs` config). */
  readonly waitMs?: number
}

export interface AcquireOptions {
  /** How long to wait for the holder (0: fail at once). */
  readonly waitMs?: number
  readonly signal?: AbortSignal
  /** Resolves once releases are being listened for. */
  readonly listen?: () => Promise<void>
  /** Resolves when `id`'s lease is released. */
  readonly wake?: (id: string) => Promise<void>
}

function sleepOrWake(ms: number, id: string, options: AcquireOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', aborted)
      resolve()
    }
    const aborted = () => {
      clearTimeout(timer)
      reject(options.signal!.reason)
    }
    const timer = setTimeout(done, ms)
    options.signal?.addEventListener('abort', aborted, { once: true })
    options.wake?.(id).then(done, done)
  })
}

/**
 * Keeps this process's leases alive: every third of the lease time it renews all of them in one statement. A lease
 * found taken over is reported once through `lost` and no longer renewed; the session's next batch is then refused
 * by its fencing token. A renewal that fails (the database is down) is retried at the next tick; the tokens stay
 * valid until another process takes the lease, which it can only do after the expiry.
 */
export class LeaseKeeper {
  private readonly held = new Map<string, number>()
  private timer: ReturnType<typeof setInterval> | undefined
  private running: Promise<void> | undefined

  constructor(
    private readonly leases: Leases,
    private readonly lost: (id: string, token: number) => void,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Starts renewing `id`'s lease (held with `token`). */
  hold(id: string, token: number): void {
    this.held.set(id, token)
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.tick(), Math.max(20, Math.floor(this.leases.leaseMs / 3)))
      this.timer.unref?.()
    }
  }

  /** Stops renewing `id` (its lease is released or lost). */
  drop(id: string, token: number): void {
    if (this.held.get(id) === token) this.held.delete(id)
    if (this.held.size === 0) this.stop()
  }

  /** Stops the timer; waits for a renewal in flight. */
  async close(): Promise<void> {
    this.stop()
    await this.running
  }

  private stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
  }

  private async tick(): Promise<void> {
    if (this.running !== undefined) return
    const snapshot = new Map(this.held)
    this.running = this.leases
      .renew(snapshot)
      .then((lost) => {
        for (const id of lost) {
          const token = snapshot.get(id)!
          if (this.held.get(id) !== token) continue
          this.held.delete(id)
          this.lost(id, token)
        }
      })
      .catch((error: unknown) => this.failed(error))
      .finally(() => {
        this.running = undefined
      })
    await this.running
  }
}
