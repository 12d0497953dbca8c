import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createViewHandler,
  loadAssets,
  type SessionSummary,
  type SessionView,
  startViewServer,
  type ViewHandler,
  viewRoute,
  type ViewServer,
} from '../src/index.js'
import { ask, makeApp, openSource, type OpenedSource, type TestApp } from './app.js'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One request to `base` with any method and `Host` header (fetch sets neither freely). */
function call(base: string, path: string, options: { method?: string; host?: string } = {}): Promise<Answer> {
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? 'GET',
        headers: options.host ? { host: options.host } : {},
      },
      (res) => {
        let body = ''
        res.on('data', (d) => (body += d))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

/** A server-sent-events stream: the events seen so far, and a wait for one that `matches`. */
function openEvents(base: string, path: string) {
  const url = new URL(base)
  const events: string[] = []
  const waiting: { matches: (event: string) => boolean; resolve: () => void }[] = []
  const req = request({ host: url.hostname, port: url.port, path }, (res) => {
    let text = ''
    res.on('data', (d) => {
      text += d
      events.splice(
        0,
        events.length,
        ...[...text.matchAll(/^event: (\S+)\ndata: (.*)$/gm)].map((m) => `${m[1]} ${m[2]}`),
      )
      for (const wait of [...waiting])
        if (events.some(wait.matches)) waiting.splice(waiting.indexOf(wait), 1), wait.resolve()
    })
  })
  req.end()
  return {
    events,
    until: (matches: (event: string) => boolean) =>
      new Promise<void>((resolve) => (events.some(matches) ? resolve() : waiting.push({ matches, resolve }))),
    close: () => req.destroy(),
  }
}

let app: TestApp
let id: string
let opened: OpenedSource

beforeAll(async () => {
  app = makeApp()
  id = await ask(app, 'What is the package name?')
  opened = await openSource(app)
})
afterAll(() => opened?.close())

describe('viewRoute', () => {
  it("names the viewer's routes and nothing else", () => {
    expect(viewRoute('/')).toEqual({ kind: 'page' })
    expect(viewRoute('/assets/viewer.js?v=1')).toEqual({ kind: 'script' })
    expect(viewRoute('/assets/viewer.css')).toEqual({ kind: 'style' })
    expect(viewRoute('/api/sessions')).toEqual({ kind: 'sessions' })
    expect(viewRoute('/api/sessions/a%20b')).toEqual({ kind: 'session', id: 'a b' })
    expect(viewRoute('/api/sessions/s1/requests/42')).toEqual({ kind: 'request', id: 's1', seq: 42 })
    expect(viewRoute('/api/events')).toEqual({ kind: 'events', session: undefined })
    expect(viewRoute('/api/events?session=s1')).toEqual({ kind: 'events', session: 's1' })
    for (const other of ['/health', '/assets/other.js', '/api', '/api/agents', '/api/events/x', '/api/sessions/a/b'])
      expect(viewRoute(other), other).toBeUndefined()
    expect(viewRoute('/api/sessions/s1/requests/x')).toBeUndefined()
    // not validly percent-encoded: not a route of the viewer's, whatever the host does with it
    expect(viewRoute('/api/sessions/%E0')).toBeUndefined()
  })
})

describe('createViewHandler mounted in a plain http server', () => {
  let server: Server
  let handler: ViewHandler
  let base: string

  beforeAll(async () => {
    handler = createViewHandler({ source: opened.source, pollMs: 50 })
    server = createServer(async (req, res) => {
      if (await handler(req, res)) return
      // the host application's own routes
      if (req.url === '/health') return void res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok')
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('host: not found')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  })
  afterAll(async () => {
    await handler.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  it('serves the page, the bundle it loads by default, the sessions and a session', async () => {
    const page = await call(base, '/')
    expect(page.status).toBe(200)
    expect(page.body).toContain('<script src="/assets/viewer.js"></script>')
    expect(page.headers['content-security-policy']).toContain("default-src 'none'")
    expect((await call(base, '/assets/viewer.js')).body).toBe((await loadAssets()).script)
    const sessions = JSON.parse((await call(base, '/api/sessions')).body) as SessionSummary[]
    expect(sessions).toMatchObject([{ id, turns: 1, verify: 'ok' }])
    const view = JSON.parse((await call(base, `/api/sessions/${id}`)).body) as SessionView
    const seq = view.turns[0]!.steps[1]!.requests[0]!.seq
    expect(JSON.parse((await call(base, `/api/sessions/${id}/requests/${seq}`)).body)).toMatchObject({
      row: { seq },
      sessionId: id,
    })
    expect(await call(base, '/api/sessions/nope')).toMatchObject({
      status: 404,
      body: '{"error":"session \\"nope\\" not found"}',
    })
  })

  it('leaves every other path to the host, and refuses writes on its own routes only', async () => {
    expect(await call(base, '/health')).toMatchObject({ status: 200, body: 'ok' })
    expect(await call(base, '/api/agents')).toMatchObject({ status: 404, body: 'host: not found' })
    expect(await call(base, '/api/sessions/%E0')).toMatchObject({ status: 404, body: 'host: not found' })
    expect(await call(base, '/health', { method: 'POST' })).toMatchObject({ status: 200, body: 'ok' })
    const post = await call(base, '/api/sessions', { method: 'POST' })
    expect(post).toMatchObject({
      status: 405,
      body: '{"error":"the viewer is read-only: only GET and HEAD are served"}',
    })
    expect(post.headers.allow).toBe('GET, HEAD')
    const head = await call(base, '/', { method: 'HEAD' })
    expect(head).toMatchObject({ status: 200, body: '' })
  })

  it('streams ready, then the session an agent appends to', async () => {
    const stream = openEvents(base, `/api/events?session=${id}`)
    try {
      // once the follower has its baseline (ready), every later append is reported
      await stream.until((event) => event.startsWith('ready '))
      await ask(app, 'And its version?', { session: id })
      await stream.until((event) => event.startsWith('session '))
      expect(stream.events[0]).toBe('ready {"kind":"ready"}')
      expect(stream.events).toContain(`session {"kind":"session","id":"${id}"}`)
    } finally {
      stream.close()
    }
  })
})

describe('startViewServer', () => {
  let server: ViewServer
  let errors: unknown[]

  beforeAll(async () => {
    errors = []
    server = await startViewServer({
      source: opened.source,
      assets: await loadAssets(),
      host: '127.0.0.1',
      port: 0,
      redact: (text) => text.replaceAll(id, '[id]'),
      onError: (error) => errors.push(error),
    })
  })
  afterAll(() => server?.close())

  it('answers only GET and HEAD, only to its bound host names, and 404 for any other path', async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`)
    const post = await call(server.url, '/nope', { method: 'DELETE' })
    expect(post).toMatchObject({ status: 405 })
    expect(await call(server.url, '/', { host: `evil.example:${server.port}` })).toMatchObject({
      status: 421,
      body: `{"error":"unexpected Host header \\"evil.example:${server.port}\\""}`,
    })
    expect(await call(server.url, '/', { host: `localhost:${server.port}` })).toMatchObject({ status: 200 })
    // a browser's address the viewer has no page at: a page that says so, with a way back to the sessions
    const page = await call(server.url, '/nope<b>')
    expect(page.status).toBe(404)
    expect(page.body).toContain('The viewer has no page at /nope&#60;b&#62;.')
    expect(page.body).toContain('<a href="/">all sessions</a>')
    expect(await call(server.url, '/api/nope')).toMatchObject({
      status: 404,
      body: '{"error":"no such endpoint: /api/nope"}',
    })
    expect(errors).toEqual([])
    // a path that is not validly percent-encoded is the client's mistake: 400, and nothing to report
    expect(await call(server.url, '/%E0')).toMatchObject({ status: 400, body: '{"error":"malformed URL: /%E0"}' })
    expect(await call(server.url, '/api/sessions/%E0%A4%A')).toMatchObject({ status: 400 })
    expect(errors).toEqual([])
  })

  it('redacts every JSON body', async () => {
    const sessions = await call(server.url, '/api/sessions')
    expect(sessions.body).toContain('"id":"[id]"')
    expect(sessions.body).not.toContain(id)
  })
})
