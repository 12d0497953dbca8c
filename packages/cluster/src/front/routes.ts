import { randomUUID } from 'node:crypto'
import type { SessionPostgres } from '@bridle/session-postgres'
import type { Context as CordisContext } from 'cordis'
import type pg from 'pg'
import { Hono, type Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { streamSSE } from 'hono/streaming'
import type { SessionQueue } from '../queue.js'
import { errorBody, HttpError } from './errors.js'
import { messageFromBody } from './messages.js'
import type { EventRow, EventTail } from './tail.js'

/** What the front's routes work with. */
export interface FrontServices {
  /** The front's app: `SessionStore` and `SessionPostgres` (it creates sessions and posts messages). */
  readonly ctx: CordisContext
  readonly persistence: SessionPostgres
  readonly queue: SessionQueue
  readonly tail: EventTail
  readonly pool: pg.Pool
  /** The largest request body accepted, in bytes. */
  readonly maxBodyBytes: number
  /** Seconds between keep-alive comments on an idle event stream. */
  readonly keepAliveSeconds: number
  /** Hears every failure answered 500 or 503 (never a token: requests are not logged with their headers). */
  readonly onError: (error: unknown) => void
}

const SESSION_ID = /^[A-Za-z0-9._:-]{1,200}$/

/** Rows an event stream reads at a time. */
const READ_LIMIT = 500

/**
 * One stored event as a server-sent event (`event`, `data`, `id` lines, as Hono's `writeSSE` frames it). A stored
 * body is one line of JSON, so it is one `data` line; the rows of one read go out in one write.
 */
function sseMessage(row: EventRow): string {
  if (/[\r\n]/.test(row.type)) throw new Error(`event type ${JSON.stringify(row.type)} cannot be sent as an SSE field`)
  const data = row.body.split(/\r\n|\r|\n/).join('\ndata: ')
  return `event: ${row.type}\ndata: ${data}\nid: ${row.seq}\n\n`
}

/** Reads the JSON body, or throws a 400 (415 for another media type). */
async function jsonBody(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? ''
  const text = await c.req.text()
  if (text.length === 0) return {}
  if (!/^application\/json\b/i.test(type))
    throw new HttpError(415, 'the body must be JSON (Content-Type: application/json)')
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(400, `the body is not valid JSON: ${(error as Error).message}`)
  }
}

function sessionIdOf(c: Context): string {
  const id = c.req.param('id') ?? ''
  if (!SESSION_ID.test(id)) throw new HttpError(400, 'a session id is 1 to 200 characters of A-Z a-z 0-9 . _ : -')
  return id
}

/** Whether `id` is stored (a session is stored from its first written event). */
async function isStored(s: FrontServices, id: string): Promise<boolean> {
  const { rows } = await s.pool.query(`SELECT 1 FROM ${s.queue.names.sessionsTable} WHERE id = $1`, [id])
  return rows.length > 0
}

/** Creates and stores an empty session (its log is the seed marker), then gives its lease back. */
async function createSession(s: FrontServices, id: string, cwd: string | undefined): Promise<void> {
  if (await isStored(s, id)) throw new HttpError(409, `session "${id}" already exists`)
  const sessions = s.ctx.sessions
  const session = sessions.prepare(id, { seed: [], meta: cwd === undefined ? {} : { cwd } })
  const detach = sessions.enter(session)
  try {
    sessions.announce(session)
    await sessions.flush(session)
  } catch (error) {
    const message = (error as Error).message ?? String(error)
    if (/already exists/.test(message)) throw new HttpError(409, `session "${id}" already exists`)
    throw error
  } finally {
    detach()
  }
}

/** Posts a message (stored durably first) and makes sure a job will serve it; nothing is enqueued if posting fails. */
async function postAndEnqueue(s: FrontServices, id: string, raw: unknown, where: string) {
  const { message, target } = messageFromBody(raw, where)
  let posted: { position: string; duplicate: boolean }
  try {
    posted = await s.persistence.post(id, message, target)
  } catch (error) {
    const text = (error as Error).message ?? String(error)
    if (text === `session "${id}" not found`) throw new HttpError(404, text)
    if (error instanceof TypeError || /already posted/.test(text))
      throw new HttpError(text.includes('already posted') ? 409 : 400, text)
    throw error
  }
  const job = await s.queue.enqueue(id)
  return {
    message: message.id as string,
    target,
    position: posted.position,
    duplicate: posted.duplicate,
    enqueued: job !== undefined,
  }
}

/**
 * The front's HTTP API (README, "HTTP API"): create a session, post a message, read a session's summary, and follow
 * its events as server-sent events resumable with `Last-Event-ID` (the seq of the last event seen).
 */
export function frontRoutes(s: FrontServices): Hono {
  const app = new Hono()
  const limit = bodyLimit({
    maxSize: s.maxBodyBytes,
    onError: () => {
      throw new HttpError(413, `the request body is larger than ${s.maxBodyBytes} bytes (the server's limit)`)
    },
  })

  app.post('/sessions', limit, async (c) => {
    const body = (await jsonBody(c)) as Record<string, unknown> | null
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new HttpError(400, 'the body must be a JSON object')
    const unknown = Object.keys(body).filter((k) => !['id', 'cwd', 'message'].includes(k))
    if (unknown.length > 0) throw new HttpError(400, `unknown field ${unknown.map((k) => `"${k}"`).join(', ')}`)
    const id = body.id === undefined ? `s-${randomUUID()}` : body.id
    if (typeof id !== 'string' || !SESSION_ID.test(id)) {
      throw new HttpError(400, 'id: a session id is 1 to 200 characters of A-Z a-z 0-9 . _ : -')
    }
    if (body.cwd !== undefined && (typeof body.cwd !== 'string' || !body.cwd.startsWith('/'))) {
      throw new HttpError(400, 'cwd must be an absolute path')
    }
    // A bad first message is refused before the session is created.
    if (body.message !== undefined) messageFromBody(body.message, 'message')
    await createSession(s, id, body.cwd as string | undefined)
    const posted = body.message === undefined ? undefined : await postAndEnqueue(s, id, body.message, 'message')
    return c.json({ id, ...(posted === undefined ? {} : { message: posted }) }, 201)
  })

  app.post('/sessions/:id/messages', limit, async (c) => {
    const id = sessionIdOf(c)
    const posted = await postAndEnqueue(s, id, await jsonBody(c), 'body')
    return c.json({ session: id, ...posted }, 202)
  })

  app.get('/sessions/:id', async (c) => {
    const id = sessionIdOf(c)
    const summary = await s.persistence.summary(id)
    if (summary === undefined) throw new HttpError(404, `session "${id}" not found`)
    return c.json(summary)
  })

  app.get('/sessions/:id/events', async (c) => {
    const id = sessionIdOf(c)
    const last = c.req.header('last-event-id') ?? c.req.query('from')
    let from = 0
    if (last !== undefined) {
      if (!/^\d{1,9}$/.test(last)) throw new HttpError(400, `Last-Event-ID must be an event seq, got "${last}"`)
      from = c.req.header('last-event-id') !== undefined ? Number(last) + 1 : Number(last)
    }
    if (!(await isStored(s, id))) throw new HttpError(404, `session "${id}" not found`)
    return streamSSE(c, async (stream) => {
      let waiting: { written: Promise<void>; cancel(): void } | undefined
      let closed = false
      stream.onAbort(() => {
        closed = true
        waiting?.cancel()
      })
      let quietSince = Date.now()
      while (!closed) {
        // Waiting starts before the read: a batch committed after the read's snapshot wakes this stream.
        waiting = s.tail.waitFor(id)
        const rows = await s.tail.read(id, from, READ_LIMIT)
        if (rows.length > 0) {
          await stream.write(rows.map(sseMessage).join(''))
          from = rows[rows.length - 1]!.seq + 1
          quietSince = Date.now()
          if (rows.length === READ_LIMIT) {
            waiting.cancel() // more rows may wait: read on at once
            continue
          }
        }
        await waiting.written
        if (!closed && Date.now() - quietSince >= s.keepAliveSeconds * 1000) {
          await stream.write(': keep-alive\n\n')
          quietSince = Date.now()
        }
      }
    })
  })

  app.notFound(() => {
    throw new HttpError(404, 'no such route (see the @bridle/cluster README, "HTTP API")')
  })
  app.onError((error, c) => {
    if (error instanceof HttpError) return c.json(errorBody(error), error.status as 400)
    s.onError(error)
    const unavailable = /ECONNREFUSED|terminat|Connection|timeout/i.test(String((error as Error).message))
    const wrapped = new HttpError(
      unavailable ? 503 : 500,
      unavailable ? 'the database is unreachable; retry later' : 'internal error',
    )
    return c.json(errorBody(wrapped), wrapped.status as 500)
  })
  return app
}
