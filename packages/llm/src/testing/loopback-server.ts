/**
 * The skeleton of an adapter's loopback test server: a real socket on 127.0.0.1, every request read completely and
 * recorded, then answered by the next behaviour of a first-in-first-out script in the provider's Server-Sent Events
 * wire format. The adapter's own mock (`@bridle/llm-openai/testing`, `@bridle/llm-anthropic/testing`) names the
 * wire: how an item is written and what an error body looks like. Only `node:http`; nothing here touches the network
 * beyond the loopback interface.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { recordRequest, type RecordedRequest } from './recorded-request.js'

/** What the server does with one request; `Item` is one event of the provider's wire. */
export type LoopbackBehaviour<Item> =
  /** 200 with the items, `delayMs` apart (or the whole byte stream in `chunkBytes` slices), then a normal end. */
  | { kind: 'sse'; events: Item[]; delayMs?: number; chunkBytes?: number; headers?: Record<string, string> }
  /** That status with that body (an object is sent as JSON). */
  | {
      kind: 'http-error'
      status: number
      body: string | object
      contentType?: string
      headers?: Record<string, string>
    }
  /** 200 and the items, then the socket is destroyed (a connection reset). */
  | { kind: 'close-early'; events: Item[]; delayMs?: number }
  /** Without events: never answers. With events: 200, the items, then silence. Held until the client leaves. */
  | { kind: 'hang'; events?: Item[] }
  /**
   * 200 and `events`, then `item` again and again — every `intervalMs`, or (0, the default) as fast as the client
   * reads — until the client disconnects or `close()`: keep-alives that never deliver data, an endless answer, a line
   * that never ends.
   */
  | { kind: 'repeat'; events?: Item[]; item: Item; intervalMs?: number }
  /** 200 and each item as the iterable produces it; an iterable that throws resets the connection. */
  | { kind: 'stream'; events: AsyncIterable<Item> }

/** The running server; `Script` is the behaviour type its adapter's tests write. */
export interface LoopbackServer<Script> {
  /** `http://127.0.0.1:<port>` */
  url: string
  requests: RecordedRequest[]
  /** Appends behaviours to the script. */
  push(...behaviours: Script[]): void
  /** Behaviours not consumed yet. */
  remaining(): number
  /** Requests that arrived after the script ran out. */
  readonly unexpected: number
  /** Resolves once `n` requests were recorded; rejects after `timeoutMs`. */
  waitForRequests(n: number, timeoutMs?: number): Promise<void>
  /** Drops every connection and stops listening. Idempotent. */
  close(): Promise<void>
}

/** The provider's wire, as the server writes it. */
export interface LoopbackWire<Item, Script> {
  /** The bytes of one item. */
  encode(item: Item): string
  /** The JSON body of the server's own failures (an exhausted script, a responder that threw), in the API's shape. */
  errorBody(message: string): object
  /** Maps a behaviour of the adapter's script to the server's (identity when they are the same type). */
  behaviour(entry: Script): LoopbackBehaviour<Item>
}

export interface LoopbackOptions<Script> {
  /**
   * Answers every request that arrives once the script is exhausted, from the request itself (a server that reports
   * usage for what it received, or answers by content, for as long a run as a test needs). Without it, an exhausted
   * script answers 500.
   */
  respond?: (request: RecordedRequest) => Script
}

/**
 * Starts a server on 127.0.0.1 port 0 with the given script. Each request is read completely, recorded, then
 * consumes exactly one behaviour; an exhausted script uses `options.respond`, else answers 500 and counts the request
 * in `unexpected`.
 */
export async function startLoopbackServer<Item, Script>(
  wire: LoopbackWire<Item, Script>,
  script: Script[] = [],
  options: LoopbackOptions<Script> = {},
): Promise<LoopbackServer<Script>> {
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
    const recorded = await recordRequest(req, res)
    requests.push(recorded)
    for (const wake of [...waiters]) wake()

    let entry = queue.shift()
    if (entry === undefined && options.respond !== undefined) {
      try {
        entry = options.respond(recorded)
      } catch (error) {
        sendJson(res, 500, wire.errorBody(`mock responder threw: ${String(error)}`))
        return
      }
    }
    if (entry === undefined) {
      unexpected += 1
      sendJson(res, 500, wire.errorBody('mock script exhausted'))
      return
    }
    try {
      await play(wire.behaviour(entry), res)
    } catch {
      // the client went away mid-write; nothing left to do
    }
  }

  async function play(behaviour: LoopbackBehaviour<Item>, res: ServerResponse): Promise<void> {
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
          const bytes = Buffer.from(behaviour.events.map(wire.encode).join(''), 'utf8')
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
        const text = wire.encode(behaviour.item)
        while (!res.destroyed) {
          // wait for the client to read (backpressure), so a slow reader never makes the mock buffer
          if (!res.write(text)) await drained(res)
          await sleep(behaviour.intervalMs ?? 0)
        }
        return
      }
      case 'stream': {
        openStream(res)
        try {
          for await (const item of behaviour.events) {
            if (res.destroyed) return
            res.write(wire.encode(item))
          }
          res.end()
        } catch {
          res.socket?.destroy()
        }
        return
      }
    }
  }

  async function writeItems(res: ServerResponse, items: Item[], delay: number): Promise<void> {
    for (const [i, item] of items.entries()) {
      if (i > 0) await sleep(delay)
      if (res.destroyed) return
      res.write(wire.encode(item))
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
