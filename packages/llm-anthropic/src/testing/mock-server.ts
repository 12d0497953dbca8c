/**
 * A loopback server that answers `POST /v1/messages` the way the Messages API does: named Server-Sent Events
 * (`event: message_start` … `event: message_stop`, `ping`, `error`), error answers with the API's JSON shape, and
 * the misbehaviours the adapter must survive (a socket reset mid-block, silence, pings forever). Only `node:http`;
 * listens on 127.0.0.1 on a random port. Each request consumes one scripted behaviour, first in first out.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One SSE event: a named event with a JSON (or raw string) payload, or raw bytes written verbatim. */
export type MessagesSseItem = { event: string; data: unknown } | { raw: string }

export type MockBehaviour =
  /** 200 with the events, `delayMs` apart (or the whole byte stream in `chunkBytes` slices), then a normal end. */
  | { kind: 'sse'; events: MessagesSseItem[]; delayMs?: number; chunkBytes?: number; headers?: Record<string, string> }
  /** That status with that body (an object is sent as JSON). */
  | {
      kind: 'http-error'
      status: number
      body: string | object
      contentType?: string
      headers?: Record<string, string>
    }
  /** 200 and the events, then the socket is destroyed (a connection reset). */
  | { kind: 'close-early'; events: MessagesSseItem[]; delayMs?: number }
  /** Without events: never answers. With events: 200, the events, then silence. Held until the client leaves. */
  | { kind: 'hang'; events?: MessagesSseItem[] }
  /** 200 and the events, then `repeat` every `everyMs` until the client leaves (pings forever, an endless answer). */
  | { kind: 'repeat'; events: MessagesSseItem[]; repeat: MessagesSseItem; everyMs: number }
  /** 200 and each event as the iterable produces it; an iterable that throws resets the connection. */
  | { kind: 'stream'; events: AsyncIterable<MessagesSseItem> }

export interface RecordedRequest {
  method: string
  path: string
  /** Lower-case header names as received. */
  headers: Record<string, string>
  rawBody: string
  /** Parsed JSON, else the raw text. */
  body: unknown
  /** Resolves when the client closed before the answer ended; never settles otherwise. */
  disconnected: Promise<void>
}

export interface MockServer {
  url: string
  requests: RecordedRequest[]
  push(...behaviours: MockBehaviour[]): void
  remaining(): number
  /** Requests that found the script exhausted (answered 500). */
  unexpected: number
  waitForRequests(n: number, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

/** The bytes of one item on the wire. */
export function encodeSseItem(item: MessagesSseItem): string {
  if ('raw' in item) return item.raw
  const data = typeof item.data === 'string' ? item.data : JSON.stringify(item.data)
  return `event: ${item.event}\ndata: ${data}\n\n`
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Starts the server with an initial script. */
export async function startMockServer(script: MockBehaviour[] = []): Promise<MockServer> {
  const queue = [...script]
  const requests: RecordedRequest[] = []
  const waiters: (() => void)[] = []
  let closing = false
  const server = createServer((req, res) => {
    void handle(req, res)
  })
  const mock: MockServer = {
    url: '',
    requests,
    push: (...behaviours) => queue.push(...behaviours),
    remaining: () => queue.length,
    unexpected: 0,
    async waitForRequests(n, timeoutMs = 2000) {
      const deadline = Date.now() + timeoutMs
      while (requests.length < n) {
        if (Date.now() > deadline) throw new Error(`mock server: ${requests.length} of ${n} requests arrived`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 20)
        })
      }
    },
    async close() {
      if (closing) return
      closing = true
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const rawBody = Buffer.concat(chunks).toString('utf8')
    let body: unknown = rawBody
    try {
      body = JSON.parse(rawBody)
    } catch {}
    let left = false
    const disconnected = new Promise<void>((resolve) => {
      res.on('close', () => {
        left = !res.writableEnded
        if (left) resolve()
      })
    })
    const headers: Record<string, string> = {}
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[key] = value
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers, rawBody, body, disconnected })
    for (const wake of waiters.splice(0)) wake()
    const behaviour = queue.shift()
    if (behaviour === undefined) {
      mock.unexpected++
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'mock script exhausted' } }))
      return
    }
    const streamHead = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }
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
        res.writeHead(200, { ...streamHead, ...behaviour.headers })
        const wire = behaviour.events.map(encodeSseItem)
        if (behaviour.chunkBytes !== undefined) {
          const bytes = Buffer.from(wire.join(''), 'utf8')
          for (let i = 0; i < bytes.length && !left; i += behaviour.chunkBytes) {
            res.write(bytes.subarray(i, i + behaviour.chunkBytes))
            await sleep(0)
          }
        } else {
          for (const item of wire) {
            if (left) break
            res.write(item)
            if (behaviour.delayMs) await sleep(behaviour.delayMs)
          }
        }
        res.end()
        return
      }
      case 'close-early': {
        res.writeHead(200, streamHead)
        for (const item of behaviour.events) {
          res.write(encodeSseItem(item))
          await sleep(behaviour.delayMs ?? 5)
        }
        res.socket?.destroy()
        return
      }
      case 'hang': {
        if (behaviour.events !== undefined) {
          res.writeHead(200, streamHead)
          for (const item of behaviour.events) res.write(encodeSseItem(item))
        }
        await disconnected
        return
      }
      case 'stream': {
        res.writeHead(200, streamHead)
        try {
          for await (const item of behaviour.events) {
            if (left) break
            res.write(encodeSseItem(item))
          }
          res.end()
        } catch {
          res.socket?.destroy()
        }
        return
      }
      case 'repeat': {
        res.writeHead(200, streamHead)
        for (const item of behaviour.events) res.write(encodeSseItem(item))
        while (!left && !closing) {
          await sleep(behaviour.everyMs)
          if (!left && !closing) res.write(encodeSseItem(behaviour.repeat))
        }
        return
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return mock
}
