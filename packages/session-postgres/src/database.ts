import pg from 'pg'

/** What the backend needs of a pool: `pg.Pool` satisfies it. */
export interface PoolLike {
  query(text: string, values?: unknown[]): Promise<QueryResultLike>
  connect(): Promise<PoolClientLike>
  on?(event: 'error', listener: (error: Error) => void): unknown
  off?(event: 'error', listener: (error: Error) => void): unknown
  end?(): Promise<void>
  readonly options?: { host?: string; port?: number; database?: string; connectionString?: string }
}

interface QueryResultLike {
  // biome-ignore lint/suspicious/noExplicitAny: rows are whatever the query selects; each caller narrows them
  readonly rows: any[]
  readonly rowCount: number | null
}

interface PoolClientLike {
  query(text: string, values?: unknown[]): Promise<QueryResultLike>
  query(config: { text: string; values?: unknown[]; rowMode: 'array' }): Promise<QueryResultLike>
  release(error?: Error | boolean): void
}

/** The quoted, schema-qualified names of the backend's tables. */
export interface Tables {
  readonly schema: string
  readonly migrations: string
  readonly sessions: string
  readonly events: string
  readonly messages: string
}

/** Table names in `schema` (a plain identifier: the config allows only `[a-z_][a-z0-9_]*`). */
export function tablesOf(schema: string): Tables {
  const q = `"${schema}"`
  return {
    schema: q,
    migrations: `${q}.migrations`,
    sessions: `${q}.sessions`,
    events: `${q}.events`,
    messages: `${q}.messages`,
  }
}

/** Creates the pool the plugin owns; pool errors of idle clients (a server restart) are reported, never thrown. */
export function createPool(connectionString: string | undefined, max: number): pg.Pool {
  return new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 })
}

/**
 * A human-readable place for a session in error messages and `locate`: `postgres://<host>:<port>/<db>` with the
 * schema and the session id, never the credentials.
 */
export function describeDatabase(pool: PoolLike, connectionString: string | undefined): string {
  const options = pool.options ?? {}
  let host = options.host
  let port = options.port
  let database = options.database
  const source = connectionString ?? options.connectionString
  if (source !== undefined) {
    try {
      const url = new URL(source)
      host ??= url.hostname
      port ??= url.port === '' ? undefined : Number(url.port)
      database ??= decodeURIComponent(url.pathname.replace(/^\//, ''))
    } catch {
      // not a URL (a key=value string): fall back to the pool's own options
    }
  }
  host ??= process.env.PGHOST ?? 'localhost'
  port ??= Number(process.env.PGPORT ?? 5432)
  database ??= process.env.PGDATABASE ?? process.env.PGUSER ?? 'postgres'
  return `postgres://${host}:${port}/${database}`
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/**
 * True when `error` means the database could not be reached or went away mid-statement (a restart, a crash, a
 * network failure), as opposed to a statement the database refused. Such failures are worth retrying.
 */
export function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code)) return true
    // SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, crash, cannot connect now)
    if (/^08/.test(code) || code === '57P01' || code === '57P02' || code === '57P03') return true
  }
  const message = String((error as { message?: unknown }).message ?? '')
  return /Connection terminated|connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/.test(
    message,
  )
}
