/**
 * A loopback OTLP/HTTP receiver for the end-to-end tests, and a strict decoder of the collector's OTLP/JSON format
 * (the protobuf JSON mapping of `ExportTraceServiceRequest`: ids as lowercase hex, 64-bit times as decimal strings,
 * enums as numbers, attributes as `{key, value: AnyValue}`), written from the format, not from the SDK, so the test
 * checks what a collector would read.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly requests: Received[]
  /** The status code the next requests get (200 until changed). */
  status: number
  close(): Promise<void>
}

export async function startReceiver(): Promise<Receiver> {
  const requests: Received[] = []
  const state = { status: 200 }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      })
      res.writeHead(state.status, { 'content-type': 'application/json' })
      res.end(state.status === 200 ? '{}' : '{"code":13,"message":"receiver down"}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get status() {
      return state.status
    },
    set status(code: number) {
      state.status = code
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export interface DecodedSpan {
  traceId: string
  spanId: string
  parentSpanId: string | undefined
  name: string
  kind: 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer'
  /** Milliseconds since the epoch. */
  start: number
  end: number
  attributes: Record<string, unknown>
  status: { code: 'unset' | 'ok' | 'error'; message?: string }
  scope: { name: string; version?: string }
  resource: Record<string, unknown>
}

const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const
const STATUS = ['unset', 'ok', 'error'] as const

function fail(what: string): never {
  throw new Error(`not OTLP/JSON: ${what}`)
}

function hex(value: unknown, bytes: number, what: string): string {
  if (typeof value !== 'string' || !new RegExp(`^[0-9a-f]{${bytes * 2}}$`).test(value) || /^0+$/.test(value))
    fail(`${what} must be ${bytes} bytes of lowercase hex, got ${JSON.stringify(value)}`)
  return value
}

function nanos(value: unknown, what: string): number {
  const text = typeof value === 'number' ? String(value) : value
  if (typeof text !== 'string' || !/^\d+$/.test(text))
    fail(`${what} must be a 64-bit integer, got ${JSON.stringify(value)}`)
  // exact to the millisecond: divide as a big integer
  return Number(BigInt(text) / 1_000_000n) + Number(BigInt(text) % 1_000_000n) / 1e6
}

function anyValue(value: any, what: string): unknown {
  if (typeof value !== 'object' || value === null) fail(`${what} is not an AnyValue`)
  const keys = Object.keys(value)
  if (keys.length !== 1) fail(`${what} must hold exactly one value, has ${keys.join(', ')}`)
  const [key] = keys
  const v = value[key!]
  switch (key) {
    case 'stringValue':
      if (typeof v !== 'string') fail(`${what}.stringValue`)
      return v
    case 'boolValue':
      if (typeof v !== 'boolean') fail(`${what}.boolValue`)
      return v
    case 'intValue': {
      const text = typeof v === 'number' ? String(v) : v
      if (typeof text !== 'string' || !/^-?\d+$/.test(text)) fail(`${what}.intValue`)
      return Number(text)
    }
    case 'doubleValue':
      if (typeof v !== 'number') fail(`${what}.doubleValue`)
      return v
    case 'arrayValue':
      return ((v?.values ?? []) as unknown[]).map((item, i) => anyValue(item, `${what}[${i}]`))
    default:
      return fail(`${what} has an unsupported value kind ${key}`)
  }
}

function attributes(list: unknown, what: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (list === undefined) return out
  if (!Array.isArray(list)) fail(`${what} must be a list`)
  for (const kv of list as { key?: unknown; value?: unknown }[]) {
    if (typeof kv.key !== 'string') fail(`${what} has an entry without a key`)
    if (kv.key in out) fail(`${what} repeats ${kv.key}`)
    out[kv.key] = anyValue(kv.value, `${what}.${kv.key}`)
  }
  return out
}

/** Decodes one `ExportTraceServiceRequest` in the OTLP/JSON format, checking every field it reads. */
export function decodeOtlpJson(body: string): DecodedSpan[] {
  const request = JSON.parse(body) as { resourceSpans?: unknown }
  if (!Array.isArray(request.resourceSpans)) fail('resourceSpans must be a list')
  const spans: DecodedSpan[] = []
  for (const rs of request.resourceSpans as any[]) {
    const resource = attributes(rs.resource?.attributes, 'resource.attributes')
    for (const ss of rs.scopeSpans ?? []) {
      const scope = { name: String(ss.scope?.name ?? ''), ...(ss.scope?.version ? { version: ss.scope.version } : {}) }
      for (const s of ss.spans ?? []) {
        const kind = KINDS[s.kind as number]
        if (kind === undefined) fail(`span kind ${JSON.stringify(s.kind)}`)
        const code = STATUS[(s.status?.code ?? 0) as number]
        if (code === undefined) fail(`status code ${JSON.stringify(s.status?.code)}`)
        const parent =
          s.parentSpanId === undefined || s.parentSpanId === '' ? undefined : hex(s.parentSpanId, 8, 'parentSpanId')
        spans.push({
          traceId: hex(s.traceId, 16, 'traceId'),
          spanId: hex(s.spanId, 8, 'spanId'),
          parentSpanId: parent,
          name: String(s.name),
          kind,
          start: nanos(s.startTimeUnixNano, 'startTimeUnixNano'),
          end: nanos(s.endTimeUnixNano, 'endTimeUnixNano'),
          attributes: attributes(s.attributes, `span ${s.name} attributes`),
          status: s.status?.message ? { code, message: s.status.message } : { code },
          scope,
          resource,
        })
      }
    }
  }
  return spans
}

/** Decoded spans compared by value: ids replaced by the parent's index in the list. */
export function withoutIds(spans: readonly DecodedSpan[]) {
  const index = new Map(spans.map((s, i) => [s.spanId, i]))
  return spans.map(({ traceId: _t, spanId: _s, parentSpanId, resource: _r, ...rest }) => ({
    ...rest,
    parent: parentSpanId === undefined ? null : (index.get(parentSpanId) ?? -1),
  }))
}
