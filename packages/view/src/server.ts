import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ViewerAssets } from './assets.js'
import { createViewHandler, type ViewHandlerOptions } from './handler.js'
import { notFoundPage } from './page.js'
import { jsonReply, send } from './reply.js'
import { messageOf } from './source.js'

export interface ViewServerOptions extends ViewHandlerOptions {
  assets: ViewerAssets
  host: string
  port: number
  /** Serve requests whatever `Host` they name (needed off loopback); otherwise only the bound loopback names. */
  anyHost?: boolean
}

export interface ViewServer {
  /** `http://host:port/`. */
  url: string
  port: number
  close(): Promise<void>
}

/** Host names a loopback-bound server answers to, so a page on another site cannot reach it by DNS rebinding. */
function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', host.includes(':') ? `[${host}]` : host])
  return new Set([...names].map((name) => `${name}:${port}`))
}

/**
 * The `bridle view` HTTP server: the view handler (`createViewHandler`) alone on a plain Node server. Read-only: GET
 * and HEAD only, on any path; unless `anyHost`, only requests naming the bound loopback host; any other path is 404
 * (a page with a link to the sessions for a browser's address, JSON under `/api/`).
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const handler = createViewHandler(options)
  let hosts: Set<string> = new Set()
  const json = jsonReply(options.redact)

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD')
      return json(res, 405, { error: 'the viewer is read-only: only GET and HEAD are served' })
    }
    if (!options.anyHost && !hosts.has(String(req.headers.host ?? '').toLowerCase())) {
      return json(res, 421, { error: `unexpected Host header "${req.headers.host ?? ''}"` })
    }
    if (await handler(req, res)) return
    const url = new URL(req.url ?? '/', 'http://viewer.invalid')
    // throws a URIError for a path that is not validly percent-encoded: answered 400 below
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
    if (parts[0] !== 'api')
      return send(res, 404, 'text/html; charset=utf-8', notFoundPage(decodeURIComponent(url.pathname)))
    return json(res, 404, { error: `no such endpoint: ${url.pathname}` })
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.end()
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
      await handler.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
