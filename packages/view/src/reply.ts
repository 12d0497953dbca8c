import type { ServerResponse } from 'node:http'
import { SERVER_CSP } from './page.js'

/** Every answer's headers: the page's policy, no sniffing, no referrer, no framing, no caching. */
export const SECURITY_HEADERS = {
  'Content-Security-Policy': SERVER_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
}

/** Answers with `body` (no body for HEAD) and the security headers. */
export function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) })
  res.end(res.req.method === 'HEAD' ? undefined : body)
}

/** A JSON answerer whose bodies pass through `redact` (the caller's redaction of the credentials it knows). */
export function jsonReply(
  redact: (text: string) => string = (text) => text,
): (res: ServerResponse, status: number, value: unknown) => void {
  return (res, status, value) => send(res, status, 'application/json; charset=utf-8', redact(JSON.stringify(value)))
}
