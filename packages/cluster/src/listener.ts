import pg from 'pg'

/**
 * One connection that LISTENs on a channel and hands each payload to `onPayload`. When the connection breaks (a
 * restart, `pg_terminate_backend`), it reconnects with backoff (50 ms doubling to 2 s) and calls `onReconnect`:
 * notifications sent while it was away are lost, so the caller looks at the tables again.
 */
export class ChannelListener {
  private client: pg.Client | undefined
  private retry: ReturnType<typeof setTimeout> | undefined
  private backoffMs = 50
  private closed = false
  private starting: Promise<void> | undefined

  constructor(
    private readonly connectionString: string,
    private readonly channel: string,
    private readonly onPayload: (payload: string) => void,
    private readonly onReconnect: () => void,
    private readonly warn: (message: string) => void,
  ) {}

  /** Connects and LISTENs; resolves once listening, rejects if the first connection fails. */
  start(): Promise<void> {
    this.starting ??= this.connect().finally(() => {
      this.starting = undefined
    })
    return this.starting
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.closed = true
    if (this.retry !== undefined) clearTimeout(this.retry)
    await this.starting?.catch(() => undefined)
    const client = this.client
    this.client = undefined
    await client?.end().catch(() => undefined)
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'bridle-cluster-listen' })
    client.on('error', (error) => this.lost(client, error))
    client.on('end', () => this.lost(client))
    try {
      await client.connect()
      await client.query(`LISTEN "${this.channel}"`)
    } catch (error) {
      client.removeAllListeners('end')
      await client.end().catch(() => undefined)
      throw error
    }
    if (this.closed) {
      await client.end().catch(() => undefined)
      return
    }
    client.on('notification', (message) => this.onPayload(message.payload ?? ''))
    this.client = client
    this.backoffMs = 50
  }

  private lost(client: pg.Client, error?: Error): void {
    if (this.client !== client) return
    this.client = undefined
    client.removeAllListeners('notification')
    void client.end().catch(() => undefined)
    if (this.closed) return
    this.warn(`cluster: the LISTEN connection on "${this.channel}" broke (${String(error ?? 'ended')}); reconnecting`)
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
