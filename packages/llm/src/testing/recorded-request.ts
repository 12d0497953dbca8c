/** What the loopback server records of each request it receives. */
import type { IncomingMessage, ServerResponse } from 'node:http'

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

/** Reads a request whole and records it. */
export async function recordRequest(req: IncomingMessage, res: ServerResponse): Promise<RecordedRequest> {
  const parts: Buffer[] = []
  for await (const part of req) parts.push(part as Buffer)
  const rawBody = Buffer.concat(parts).toString('utf8')
  const disconnected = new Promise<void>((resolve) => {
    res.on('close', () => {
      if (!res.writableEnded) resolve()
    })
  })
  return {
    method: req.method ?? '',
    path: req.url ?? '',
    headers: lowerHeaders(req),
    rawBody,
    body: parseBody(rawBody),
    disconnected,
  }
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
