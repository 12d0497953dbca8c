import { parseTokens, startFront } from '@bridle/cluster'
import { boot } from '../boot.js'
import { resolveApp } from '../default-app.js'
import { UsageError } from '../errors.js'
import type { Io } from '../terminal.js'
import { parsePort, untilSignal } from './view.js'

export interface ServeOptions {
  config?: string
  port?: string
  host?: string
  maxBody?: string
  viewer?: boolean
  env?: NodeJS.ProcessEnv
}

/** The app must keep its sessions in PostgreSQL: a front and its workers share nothing else. */
export function requirePostgres(rows: readonly { package?: string; path?: string }[], command: string): void {
  if (!rows.some((row) => row.package === '@bridle/session-postgres')) {
    throw new UsageError(
      `bridle ${command} needs the sessions in PostgreSQL: list @bridle/session-postgres (with its connectionString) in bridle.yaml`,
    )
  }
}

function parseBytes(text: string | undefined): number {
  if (text === undefined) return 1_048_576
  const bytes = Number(text)
  if (!/^\d+$/.test(text) || bytes < 1_024 || bytes > 67_108_864) {
    throw new UsageError(`--max-body must be a byte count from 1024 to 67108864, got "${text}"`)
  }
  return bytes
}

/**
 * `bridle serve`: the HTTP front of a cluster (the @bridle/cluster README, "HTTP API") on the app's session-postgres
 * database, until interrupted. The bearer token comes from BRIDLE_SERVE_TOKEN; requests are logged on stderr by
 * method, path and status only.
 */
export async function serve(options: ServeOptions, io: Io, stop: Promise<void> = untilSignal()): Promise<number> {
  const env = options.env ?? process.env
  const tokens = parseTokens(env.BRIDLE_SERVE_TOKEN)
  if (tokens.length === 0) {
    throw new UsageError(
      'BRIDLE_SERVE_TOKEN is not set: bridle serve answers only requests that carry that bearer token',
    )
  }
  if (tokens.some((t) => t.length < 16))
    throw new UsageError('BRIDLE_SERVE_TOKEN: every token must be at least 16 characters')
  const port = parsePort(options.port)
  const maxBodyBytes = parseBytes(options.maxBody)
  const app = await resolveApp(options.config)
  requirePostgres(app.plugins as never, 'serve')
  const booted = await boot(app, { readOnly: true })
  try {
    const front = await startFront({
      ctx: booted.ctx,
      tokens,
      host: options.host ?? '127.0.0.1',
      port,
      maxBodyBytes,
      viewer: options.viewer !== false,
      log: (line) => io.err(`bridle serve: ${line}\n`),
      onError: (error) => io.err(`bridle serve: error: ${(error as Error)?.message ?? String(error)}\n`),
    })
    io.out(`${front.url}\n`)
    io.err('bridle serve: serving the session API (bearer token from BRIDLE_SERVE_TOKEN); press Ctrl-C to stop\n')
    await stop
    await front.close()
  } finally {
    await booted.close()
  }
  return 0
}
