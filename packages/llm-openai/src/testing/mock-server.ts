/**
 * A loopback chat-completions server for tests: the real SSE wire protocol over a real socket on
 * 127.0.0.1, driven by a first-in-first-out script of behaviours, recording every request.
 * Only `node:http`; nothing here touches the network beyond the loopback interface.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** One SSE item: a string is sent as `data: <string>`, an object as `data: <JSON>`, `raw` verbatim. */
export type SseItem = string | { raw: string } | Record<string, unknown>

/** What the server does with one request. */
export type MockBehaviour =
  | {
      kind: 'sse'
      events: SseItem[]
      delayMs?: number
      chunkBytes?: number
      headers?: Record<string, string>
    }
  | {
      kind: 'http-error'
      status: number
      body: string | object
      contentType?: string
      headers?: Record<string, string>
    }
  | { kind: 'close-early'; events: SseItem[]; delayMs?: number }
  | { kind: 'hang'; events?: SseItem[] }
  /**
   * 200 and `events`, then `item` again and again — every `intervalMs`, or (0, the default) as fast as
   * the client reads — until the client disconnects or `close()`: a stream of keep-alives that never
   * delivers data, or a line that never ends.
   */
  | { kind: 'repeat'; events?: SseItem[]; item: SseItem; intervalMs?: number }

/** A request as the server received it. */
export interface RecordedRequest {
  method: string
  path: string
  /** Lower-case header names as received; repeated headers joined with `, `. */
  headers: Record<string, string>
  rawBody: string
  /** Parsed JSON, else the raw text. */
  body: unknown
  /** Resolves when the client closed before the response ended; never settles otherwise. */
  disconnected: Promise<void>
}

export interface MockServer {
  /** `http://127.0.0.1:<port>` */
  url: string
  requests: RecordedRequest[]
  /** Appends behaviours to the script. */
  push(...behaviours: MockBehaviour[]): void
  /** Behaviours not consumed yet. */
  remaining(): number
  /** Requests that arrived after the script ran out. */
  readonly unexpected: number
  /** Resolves once `n` requests were recorded; rejects after `timeoutMs`. */
  waitForRequests(n: number, timeoutMs?: number): Promise<void>
  /** Drops every connection and stops listening. Idempotent. */
  close(): Promise<void>
}

/** Renders one item in SSE wire form. */
export function encodeSseItem(item: SseItem): string {
  if (typeof item === 'string') return `data: ${item}\n\n`
  if (isRaw(item)) return item.raw
  return `data: ${JSON.stringify(item)}\n\n`
}

function isRaw(item: object): item is { raw: string } {
  const keys = Object.keys(item)
  return keys.length === 1 && keys[0] === 'raw' && typeof (item as { raw: unknown }).raw === 'string'
}

/** Options of {@link startMockServer}. */
export interface MockServerOptions {
  /**
   * Answers every request that arrives once the script is exhausted, from the request itself (a server that
   * reports usage for what it received, or answers by content, for as long a run as a test needs). Without it, an
   * exhausted script answers 500.
   */
  respond?: (request: RecordedRequest) => MockBehaviour
}

/**
 * Starts a server on 127.0.0.1 port 0 with the given script. Each request is read completely,
 * recorded, then consumes exactly one behaviour; an exhausted script uses `options.respond`, else
 * answers 500 and counts the request in `unexpected`.
 */
export async function startMockServer(
  script: MockBehaviour[] = [],
  options: MockServerOptions = {},
): Promise<MockServer> {
  const queue = [...script]
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const waiters = new Set<() => void>()
  let unexpected = 0
  let closed: Promise<void> | undefined

  const server = createServer((req, res) => {
    void handle(req, res)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return setImmediate(resolve)
      const timer = setTimeout(() => {
        timers.delete(timer)
        resolve()
      }, ms)
      timers.add(timer)
    })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = []
    for await (const part of req) parts.push(part as Buffer)
    const rawBody = Buffer.concat(parts).toString('utf8')
    const disconnected = new Promise<void>((resolve) => {
      res.on('close', () => {
        if (!res.writableEnded) resolve()
      })
    })
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: lowerHeaders(req),
      rawBody,
      body: parseBody(rawBody),
      disconnected,
    }
    requests.push(recorded)
    for (const wake of [...waiters]) wake()

    let behaviour = queue.shift()
    if (behaviour === undefined && options.respond !== undefined) {
      try {
        behaviour = options.respond(recorded)
      } catch (error) {
        sendJson(res, 500, { error: { message: `mock responder threw: ${String(error)}`, type: 'mock_error' } })
        return
      }
    }
    if (behaviour === undefined) {
      unexpected += 1
      sendJson(res, 500, { error: { message: 'mock script exhausted', type: 'mock_error' } })
      return
    }
    try {
      await play(behaviour, res)
    } catch {
      // the client went away mid-write; nothing left to do
    }
  }

  async function play(behaviour: MockBehaviour, res: ServerResponse): Promise<void> {
    switch (behaviour.kind) {
      case 'http-error': {
        const text = typeof behaviour.body === 'string' ? behaviour.body : JSON.stringify(behaviour.body)
        res.writeHead(behaviour.status, {
          'content-type': behaviour.contentType ?? 'application/json',
          ...behaviour.headers,
        })
        res.end(text)
        return
      }
      case 'sse': {
        openStream(res, behaviour.headers)
        const delay = behaviour.delayMs ?? 0
        if (behaviour.chunkBytes !== undefined) {
          const bytes = Buffer.from(behaviour.events.map(encodeSseItem).join(''), 'utf8')
          const size = Math.max(1, Math.floor(behaviour.chunkBytes))
          for (let at = 0; at < bytes.length; at += size) {
            if (at > 0) await sleep(delay)
            if (res.destroyed) return
            res.write(bytes.subarray(at, at + size))
          }
        } else {
          await writeItems(res, behaviour.events, delay)
        }
        if (!res.destroyed) res.end()
        return
      }
      case 'close-early': {
        openStream(res)
        await writeItems(res, behaviour.events, behaviour.delayMs ?? 5)
        await sleep(behaviour.delayMs ?? 5)
        res.socket?.destroy()
        return
      }
      case 'hang': {
        if (behaviour.events === undefined) return
        openStream(res)
        await writeItems(res, behaviour.events, 0)
        return
      }
      case 'repeat': {
        openStream(res)
        await writeItems(res, behaviour.events ?? [], 0)
        const text = encodeSseItem(behaviour.item)
        while (!res.destroyed) {
          // wait for the client to read (backpressure), so a slow reader never makes the mock buffer
          if (!res.write(text)) await drained(res)
          await sleep(behaviour.intervalMs ?? 0)
        }
        return
      }
    }
  }

  async function writeItems(res: ServerResponse, items: SseItem[], delay: number): Promise<void> {
    for (const [i, item] of items.entries()) {
      if (i > 0) await sleep(delay)
      if (res.destroyed) return
      res.write(encodeSseItem(item))
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    push: (...behaviours) => void queue.push(...behaviours),
    remaining: () => queue.length,
    get unexpected() {
      return unexpected
    },
    waitForRequests(n, timeoutMs = 2000) {
      return new Promise<void>((resolve, reject) => {
        if (requests.length >= n) return resolve()
        const wake = () => {
          if (requests.length < n) return
          clearTimeout(timer)
          waiters.delete(wake)
          resolve()
        }
        const timer = setTimeout(() => {
          waiters.delete(wake)
          reject(new Error(`mock server: expected ${n} request(s), got ${requests.length} within ${timeoutMs}ms`))
        }, timeoutMs)
        waiters.add(wake)
      })
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer)
        timers.clear()
        server.closeAllConnections()
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
      return closed
    },
  }
}

function openStream(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  })
  res.flushHeaders()
}

/** Resolves when `res` can take more data, or is closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done)
      resolve()
    }
    res.on('drain', done).on('close', done)
  })
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

function lowerHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

function parseBody(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown
  } catch {
    return raw
  }
}
