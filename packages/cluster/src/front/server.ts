import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import type { SessionPostgres } from '@bridle/session-postgres'
import { createViewHandler, ViewSource, type ViewHandler } from '@bridle/view'
import type { Context } from 'cordis'
import pg from 'pg'
import type PgBoss from 'pg-boss'
import { createBoss } from '../boss.js'
import { clusterNames } from '../names.js'
import { SessionQueue } from '../queue.js'
import { installCluster } from '../schema.js'
import { tokenChecker } from './auth.js'
import { errorBody, HttpError } from './errors.js'
import { frontRoutes } from './routes.js'
import { EventTail } from './tail.js'

/** Options of `startFront`. */
export interface FrontOptions {
  /** An app with `SessionStore` and `SessionPostgres` loaded. */
  readonly ctx: Context
  /** Accepted bearer tokens (at least 16 characters each). */
  readonly tokens: readonly string[]
  /** Default: session-postgres's `connectionString`. */
  readonly connectionString?: string
  readonly host?: string
  readonly port?: number
  /** The same queue schema and queue as the workers (defaults as `ClusterWorker`'s). */
  readonly queueSchema?: string
  readonly queue?: string
  /** The largest request body (default 1 MiB). */
  readonly maxBodyBytes?: number
  /** Serve the session viewer's pages too (default true). */
  readonly viewer?: boolean
  /** Seconds between keep-alive comments on a quiet event stream (default 15). */
  readonly keepAliveSeconds?: number
  /** One line per request: method, path, status, milliseconds (never headers or bodies). */
  readonly log?: (line: string) => void
  /** Hears failures answered 500/503 and the queue's errors. */
  readonly onError?: (error: unknown) => void
}

/** A running front. */
export interface Front {
  readonly url: string
  readonly port: number
  close(): Promise<void>
}

/**
 * Starts the HTTP front of a cluster (`bridle serve`): the session API and event streams (Hono, on Node's `http`),
 * the viewer's pages (`@bridle/view`'s handler), every request behind the bearer token. Any number of fronts can
 * run against one database: they share nothing but it.
 */
export async function startFront(options: FrontOptions): Promise<Front> {
  const check = tokenChecker(options.tokens)
  const persistence = options.ctx.get('sessionPersistence') as SessionPostgres | undefined
  if (persistence === undefined || typeof (persistence as { post?: unknown }).post !== 'function') {
    throw new Error('serve: the app must use @bridle/session-postgres for its sessions')
  }
  await persistence.ready
  const connectionString = options.connectionString ?? persistence.config.connectionString
  if (connectionString === undefined)
    throw new Error('serve: no connectionString (set one on @bridle/session-postgres)')
  const onError = options.onError ?? (() => undefined)
  const names = clusterNames(
    persistence.config.schema,
    options.queueSchema ?? 'bridle_queue',
    options.queue ?? 'bridle-sessions',
  )
  const pool = new pg.Pool({ connectionString, max: 10, application_name: 'bridle-serve' })
  pool.on('error', onError)
  let boss: PgBoss | undefined
  let tail: EventTail | undefined
  let viewer: ViewHandler | undefined
  try {
    await installCluster(pool, names)
    boss = createBoss(
      pool,
      names,
      { supervise: false, maintenanceIntervalSeconds: 60, pollingIntervalSeconds: 2 },
      () => false,
      onError,
    )
    await boss.start()
    await ensureQueueIfMissing(boss, names.queue)
    tail = new EventTail(pool, connectionString, names, (message) => onError(new Error(message)))
    await tail.start()
  } catch (error) {
    await tail?.close()
    await boss?.stop({ graceful: false, close: false }).catch(() => undefined)
    await pool.end().catch(() => undefined)
    throw error
  }
  const queue = new SessionQueue(pool, boss, names)
  const routes = frontRoutes({
    ctx: options.ctx,
    persistence,
    queue,
    tail,
    pool,
    maxBodyBytes: options.maxBodyBytes ?? 1_048_576,
    keepAliveSeconds: options.keepAliveSeconds ?? 15,
    onError,
  })
  const api = getRequestListener(routes.fetch)
  if (options.viewer !== false) viewer = createViewHandler({ source: new ViewSource(persistence), onError })
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now()
    res.on('finish', () =>
      options.log?.(
        `${req.method} ${(req.url ?? '').split('?')[0]} ${res.statusCode} ${Math.round(performance.now() - started)} ms`,
      ),
    )
    try {
      if (!check(req.headers.authorization)) {
        const refused = new HttpError(401, 'missing or wrong bearer token (Authorization: Bearer <token>)')
        res.writeHead(401, {
          'Content-Type': 'application/json; charset=utf-8',
          'WWW-Authenticate': 'Bearer realm="bridle", Basic realm="bridle"',
        })
        res.end(JSON.stringify(errorBody(refused)))
        return
      }
      if (viewer !== undefined && (await viewer(req, res))) return
      await api(req, res)
    } catch (error) {
      onError(error)
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' })
      res.end(JSON.stringify(errorBody(new HttpError(500, 'internal error'))))
    }
  })
  server.requestTimeout = 0 // event streams stay open
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve())
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  let closing: Promise<void> | undefined
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () =>
      (closing ??= (async () => {
        await viewer?.close()
        await tail.close()
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
        await boss.stop({ graceful: false, close: false }).catch(() => undefined)
        await pool.end().catch(() => undefined)
      })()),
  }
}

/** The front enqueues into the workers' queue; it creates it (with the workers' defaults) if no worker did yet. */
async function ensureQueueIfMissing(boss: PgBoss, queue: string): Promise<void> {
  for (let attempt = 1; (await boss.getQueue(queue)) === null; attempt++) {
    try {
      await boss.createQueue(queue, { policy: 'singleton', expireInSeconds: 3_600, retryLimit: 10_000 } as PgBoss.Queue)
    } catch (error) {
      // another process created it at the same moment (a deadlock or a duplicate): look again
      if (attempt >= 10) throw error
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.floor(Math.random() * 50)))
    }
  }
}
