import { createHash } from 'node:crypto'
import type { PoolLike } from './database.js'

/** The NOTIFY channel of a schema: fixed length, so any schema name fits PostgreSQL's 63-byte identifiers. */
export function channelOf(schema: string): string {
  return `bridle_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`
}

/** Payload prefixes on the channel: a message was posted to a session, or a session's lease was released. */
export const MESSAGE = 'm:'
export const RELEASE = 'r:'

interface ListeningClient {
  query(text: string): Promise<unknown>
  release(error?: Error | boolean): void
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown
  removeListener(event: 'error', listener: (error?: Error) => void): unknown
  removeAllListeners(event?: string): unknown
}

/**
 * One dedicated connection that LISTENs on the schema's channel and hands each payload to `onPayload`. It is taken
 * from the pool the first time something needs it (a process that only posts or reads never holds one). When the
 * connection breaks (a database restart), it reconnects with backoff and calls `onReconnect`, because notifications
 * sent while it was away are lost and must be made up for by reading the tables.
 */
export class NotificationListener {
  private client: ListeningClient | undefined
  private connecting: Promise<void> | undefined
  private retry: ReturnType<typeof setTimeout> | undefined
  private backoffMs = 50
  private closed = false
  private readonly waiters = new Map<string, Set<() => void>>()
  /** When (`performance.now()`) the current LISTEN became active: every notification after it arrives. */
  listeningSince: number | undefined

  constructor(
    private readonly pool: PoolLike,
    private readonly channel: string,
    private readonly onPayload: (payload: string) => void,
    private readonly onReconnect: () => void,
    private readonly warn: (message: string) => void,
  ) {}

  /** Starts listening (idempotent); resolves once LISTEN is active, or rejects if the first connection fails. */
  start(): Promise<void> {
    if (this.closed) return Promise.resolve()
    if (this.client !== undefined) return Promise.resolve()
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined
    })
    return this.connecting
  }

  /** Resolves the next time the payload `payload` arrives (used to wake lease waiters); never rejects. */
  next(payload: string): Promise<void> {
    if (this.closed) return new Promise(() => {})
    void this.start().catch(() => undefined)
    return new Promise((resolve) => {
      let set = this.waiters.get(payload)
      if (set === undefined) this.waiters.set(payload, (set = new Set()))
      set.add(resolve)
    })
  }

  /** Stops listening and gives the connection back. */
  async close(): Promise<void> {
    this.closed = true
    if (this.retry !== undefined) clearTimeout(this.retry)
    await this.connecting?.catch(() => undefined)
    const client = this.client
    this.client = undefined
    if (client === undefined) return
    client.removeAllListeners('notification')
    client.removeAllListeners('error')
    client.removeAllListeners('end')
    // A connection the server drops during UNLISTEN (a shutdown racing this close) rejects the query and emits
    // 'error' too; a checked-out client has no pool listener, so this one keeps that from crashing the process.
    const ignore = () => undefined
    client.on('error', ignore)
    const unlistened = await client.query(`UNLISTEN *`).then(
      () => true,
      () => false,
    )
    client.removeListener('error', ignore)
    // a connection that failed is destroyed, not handed back to the pool
    client.release(!unlistened)
  }

  private async connect(): Promise<void> {
    const client = (await this.pool.connect()) as unknown as ListeningClient
    const broken = (error?: Error) => this.lost(client, error)
    client.on('error', broken)
    client.on('end', broken)
    try {
      await client.query(`LISTEN "${this.channel}"`)
    } catch (error) {
      client.removeAllListeners('error')
      client.removeAllListeners('end')
      client.release(true)
      throw error
    }
    if (this.closed) {
      client.release()
      return
    }
    client.on('notification', (message) => {
      const payload = message.payload ?? ''
      const waiting = this.waiters.get(payload)
      if (waiting !== undefined) {
        this.waiters.delete(payload)
        for (const wake of waiting) wake()
      }
      this.onPayload(payload)
    })
    this.client = client
    this.listeningSince = performance.now()
    this.backoffMs = 50
  }

  private lost(client: ListeningClient, error?: Error): void {
    if (this.client !== client) return
    this.client = undefined
    client.removeAllListeners('notification')
    client.release(error ?? true)
    if (this.closed) return
    this.warn(`session-postgres: the LISTEN connection broke (${String(error ?? 'ended')}); reconnecting`)
    this.schedule()
  }

  private schedule(): void {
    if (this.closed || this.retry !== undefined) return
    this.retry = setTimeout(() => {
      this.retry = undefined
      this.start().then(
        () => this.onReconnect(),
        () => {
          this.backoffMs = Math.min(this.backoffMs * 2, 2_000)
          this.schedule()
        },
      )
    }, this.backoffMs)
    this.retry.unref?.()
  }
}
