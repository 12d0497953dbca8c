import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ViewerAssets } from './assets.js'
import { StoreFollower, type StoreChange } from './follow.js'
import { SERVER_CSP, serverPage } from './page.js'
import { messageOf, SessionNotFoundError, type ViewSource } from './source.js'

export interface ViewServerOptions {
  source: ViewSource
  assets: ViewerAssets
  host: string
  port: number
  /** Serve requests whatever `Host` they name (needed off loopback); otherwise only the bound loopback names. */
  anyHost?: boolean
  /** Applied to every JSON body: the CLI's redaction of the credentials it knows. */
  redact?: (text: string) => string
  /** How often the follower polls the backend for changes while a page listens. */
  pollMs?: number
  onError?: (error: unknown) => void
}

export interface ViewServer {
  /** `http://host:port/`. */
  url: string
  port: number
  close(): Promise<void>
}

const SECURITY_HEADERS = {
  'Content-Security-Policy': SERVER_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
}

function send(res: ServerResponse, status: number, type: string, body: string) {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) })
  res.end(res.req.method === 'HEAD' ? undefined : body)
}

/** Host names a loopback-bound server answers to, so a page on another site cannot reach it by DNS rebinding. */
function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', host.includes(':') ? `[${host}]` : host])
  return new Set([...names].map((name) => `${name}:${port}`))
}

/**
 * The `bridle view` HTTP server. Read-only: GET and HEAD only, every response with the page's security headers.
 * Routes: `/` (the page), `/assets/viewer.{js,css}`, `/api/sessions`, `/api/sessions/ID`,
 * `/api/sessions/ID/requests/SEQ`, and `/api/events[?session=ID]` (server-sent events while the store changes).
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const { source, assets } = options
  const follower = new StoreFollower(source, options.pollMs ?? 250, options.onError)
  const streams = new Set<ServerResponse>()
  let hosts: Set<string> = new Set()
  const redact = options.redact ?? ((text: string) => text)
  const json = (res: ServerResponse, status: number, value: unknown) =>
    send(res, status, 'application/json; charset=utf-8', redact(JSON.stringify(value)))

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD')
      return json(res, 405, { error: 'the viewer is read-only: only GET and HEAD are served' })
    }
    if (!options.anyHost && !hosts.has(String(req.headers.host ?? '').toLowerCase())) {
      return json(res, 421, { error: `unexpected Host header "${req.headers.host ?? ''}"` })
    }
    const url = new URL(req.url ?? '/', 'http://viewer.invalid')
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
    if (url.pathname === '/') return send(res, 200, 'text/html; charset=utf-8', serverPage())
    if (url.pathname === '/assets/viewer.js') return send(res, 200, 'text/javascript; charset=utf-8', assets.script)
    if (url.pathname === '/assets/viewer.css') return send(res, 200, 'text/css; charset=utf-8', assets.style)
    if (parts[0] !== 'api') return json(res, 404, { error: `no such page: ${url.pathname}` })
    if (parts[1] === 'events' && parts.length === 2)
      return events(req, res, url.searchParams.get('session') ?? undefined)
    if (parts[1] !== 'sessions') return json(res, 404, { error: `no such endpoint: ${url.pathname}` })
    if (parts.length === 2) return json(res, 200, await source.sessions())
    const id = parts[2]!
    if (parts.length === 3) return json(res, 200, await source.session(id))
    if (parts.length === 5 && parts[3] === 'requests' && /^\d+$/.test(parts[4]!)) {
      const view = await source.request(id, Number(parts[4]))
      return view
        ? json(res, 200, view)
        : json(res, 404, { error: `session "${id}" has no request at seq ${parts[4]}` })
    }
    return json(res, 404, { error: `no such endpoint: ${url.pathname}` })
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

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.end()
      if (error instanceof SessionNotFoundError) return json(res, 404, { error: error.message })
      // a malformed percent escape in the path (`/api/sessions/%E0%A4%A`) is the client's mistake
      if (error instanceof URIError) return json(res, 400, { error: `malformed URL: ${req.url ?? ''}` })
      options.onError?.(error)
      json(res, 500, { error: messageOf(error) })
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  hosts = allowedHosts(options.host, port)
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host
  return {
    url: `http://${shown}:${port}/`,
    port,
    async close() {
      for (const res of streams) res.end()
      await follower.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
