import type { IncomingMessage, ServerResponse } from 'node:http'
import { loadAssets, type ViewerAssets } from './assets.js'
import { StoreFollower, type StoreChange } from './follow.js'
import { serverPage } from './page.js'
import { jsonReply, SECURITY_HEADERS, send } from './reply.js'
import { messageOf, SessionNotFoundError, type ViewSource } from './source.js'

export interface ViewHandlerOptions {
  /** The sessions the viewer shows (`new ViewSource(ctx.sessionPersistence)`). */
  source: ViewSource
  /** The page's client bundle; by default the one built beside this package (`loadAssets()`), read on first use. */
  assets?: ViewerAssets
  /** Applied to every JSON body, e.g. a redaction of the credentials the host application knows. */
  redact?: (text: string) => string
  /** How often the follower polls the backend for changes while a page listens (default 250 ms). */
  pollMs?: number
  /** Told about every error that answered 500. */
  onError?: (error: unknown) => void
}

/**
 * A Node `http` request listener for the viewer's routes, mountable in any server. It resolves `true` when it
 * answered the request and `false`, without touching the response, when the path is not one of its routes.
 */
export interface ViewHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<boolean>
  /** Ends the open event streams and stops following the backend. */
  close(): Promise<void>
}

/** One of the viewer's routes. */
export type ViewRoute =
  | { kind: 'page' | 'script' | 'style' | 'sessions' }
  | { kind: 'events'; session: string | undefined }
  | { kind: 'session'; id: string }
  | { kind: 'request'; id: string; seq: number }

/**
 * The route of a request URL: `/` (the page), `/assets/viewer.{js,css}`, `/api/sessions`, `/api/sessions/ID`,
 * `/api/sessions/ID/requests/SEQ` and `/api/events[?session=ID]`; `undefined` for any other path, or one that is not
 * validly percent-encoded.
 */
export function viewRoute(target: string): ViewRoute | undefined {
  const url = new URL(target, 'http://viewer.invalid')
  let parts: string[]
  try {
    parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
  } catch {
    return undefined
  }
  if (url.pathname === '/') return { kind: 'page' }
  if (url.pathname === '/assets/viewer.js') return { kind: 'script' }
  if (url.pathname === '/assets/viewer.css') return { kind: 'style' }
  if (parts[0] !== 'api') return undefined
  if (parts[1] === 'events' && parts.length === 2)
    return { kind: 'events', session: url.searchParams.get('session') ?? undefined }
  if (parts[1] !== 'sessions') return undefined
  if (parts.length === 2) return { kind: 'sessions' }
  const id = parts[2]!
  if (parts.length === 3) return { kind: 'session', id }
  if (parts.length === 5 && parts[3] === 'requests' && /^\d+$/.test(parts[4]!))
    return { kind: 'request', id, seq: Number(parts[4]) }
  return undefined
}

/**
 * The viewer over HTTP: read-only (GET and HEAD; another method on one of its routes is answered 405), every answer
 * with the page's security headers, `/api/events` a server-sent-events stream while the store changes. It does not
 * check the `Host` header: a server bound to loopback does that before it (see `startViewServer`).
 */
export function createViewHandler(options: ViewHandlerOptions): ViewHandler {
  const { source } = options
  const follower = new StoreFollower(source, options.pollMs ?? 250, options.onError)
  const streams = new Set<ServerResponse>()
  const json = jsonReply(options.redact)
  const redact = options.redact ?? ((text: string) => text)
  const assets = async () => options.assets ?? loadAssets()

  const answer = async (route: ViewRoute, req: IncomingMessage, res: ServerResponse) => {
    switch (route.kind) {
      case 'page':
        return send(res, 200, 'text/html; charset=utf-8', serverPage())
      case 'script':
        return send(res, 200, 'text/javascript; charset=utf-8', (await assets()).script)
      case 'style':
        return send(res, 200, 'text/css; charset=utf-8', (await assets()).style)
      case 'events':
        return events(req, res, route.session)
      case 'sessions':
        return json(res, 200, await source.sessions())
      case 'session':
        return json(res, 200, await source.session(route.id))
      case 'request': {
        const view = await source.request(route.id, route.seq)
        return view
          ? json(res, 200, view)
          : json(res, 404, { error: `session "${route.id}" has no request at seq ${route.seq}` })
      }
    }
  }

  /** One server-sent-events stream: `ready` once the follower has its baseline, then each change. */
  const events = (req: IncomingMessage, res: ServerResponse, session: string | undefined) => {
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      Connection: 'keep-alive',
    })
    res.write(': bridle view\n\n')
    streams.add(res)
    const write = (change: StoreChange) => {
      if (change.kind === 'session' && session !== undefined && change.id !== session) return
      res.write(`event: ${change.kind}\ndata: ${redact(JSON.stringify(change))}\n\n`)
    }
    const unsubscribe = follower.subscribe(write)
    req.on('close', () => {
      unsubscribe()
      streams.delete(res)
    })
  }

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    let route: ViewRoute | undefined
    try {
      route = viewRoute(req.url ?? '/')
    } catch (error) {
      // a malformed percent escape in the path (`/api/sessions/%E0%A4%A`) is the client's mistake
      if (!(error instanceof URIError)) throw error
      json(res, 400, { error: `malformed URL: ${req.url ?? ''}` })
      return true
    }
    if (route === undefined) return false
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD')
        json(res, 405, { error: 'the viewer is read-only: only GET and HEAD are served' })
      } else await answer(route, req, res)
    } catch (error) {
      if (res.headersSent) res.end()
      else if (error instanceof SessionNotFoundError) json(res, 404, { error: error.message })
      else {
        options.onError?.(error)
        json(res, 500, { error: messageOf(error) })
      }
    }
    return true
  }
  return Object.assign(handler, {
    async close() {
      for (const res of streams) res.end()
      await follower.close()
    },
  })
}
