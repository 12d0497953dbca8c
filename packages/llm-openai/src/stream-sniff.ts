/**
 * Telling an event stream from something else that came back with a 2xx status — a login page, a
 * proxy's HTML error, a JSON completion from a server that ignored `stream: true` — and saying what it
 * was: its content type and a short, sanitized snippet of its text.
 */
import { LlmError, redactSecrets, redactTruncated } from '@bridle/llm'

/** Bytes read for a verdict before an opening of blank lines counts as an event stream. */
export const SNIFF_LIMIT_BYTES = 1024
/** Bytes read for the snippet of an answer that is not an event stream. */
export const SNIPPET_BYTES = 2048
const SNIPPET_CHARS = 120

export type SniffVerdict = 'event-stream' | 'not-event-stream' | 'undecided'

const FIELDS = ['data', 'event', 'id', 'retry']

/**
 * Judges the opening of a body (decoded text so far; `ended` when the body is complete). An event
 * stream opens, after an optional BOM and blank lines, with a comment (`:`) or a field name followed by
 * `:` or a line end. An empty body labeled `text/event-stream` is left to the caller's end-of-stream
 * check (`STREAM_CLOSED`); an empty body under any other label is not an event stream.
 */
export function sniffOpening(text: string, ended: boolean, labeled = true): SniffVerdict {
  const rest = text.replace(/^\uFEFF/, '').replace(/^[\r\n]+/, '')
  if (rest === '') return !ended ? 'undecided' : labeled ? 'event-stream' : 'not-event-stream'
  if (rest.startsWith(':')) return 'event-stream'
  for (const field of FIELDS) {
    if (rest.length <= field.length) {
      if (field.startsWith(rest)) return ended ? (rest === field ? 'event-stream' : 'not-event-stream') : 'undecided'
      continue
    }
    if (rest.startsWith(field) && /[:\r\n]/.test(rest[field.length]!)) return 'event-stream'
  }
  return 'not-event-stream'
}

/**
 * A one-line preview of a body: HTML reduced to its text (scripts and styles dropped), control
 * characters removed (a body must not drive the terminal), whitespace collapsed, known secrets redacted, then cut to
 * 120 characters.
 */
export function snippetOf(text: string): string {
  let flat = text.replace(/^\uFEFF/, '')
  if (/^\s*</.test(flat)) {
    const inner = flat
      .replace(/<(script|style)\b[\s\S]*?(<\/\1\s*>|$)/gi, ' ')
      .replace(/<[^>]*>?/g, ' ')
      .replace(/&nbsp;/g, ' ')
    if (inner.trim() !== '') flat = inner
  }
  // redacted before it is cut, so a key straddling the cut leaves no prefix behind
  flat = redactSecrets(flat.replace(/\p{C}/gu, ' ').replace(/\s+/g, ' ').trim())
  if (flat === '') return '(empty body)'
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS - 1)}…` : flat
}

/**
 * The error for a 2xx answer that is not an event stream. A JSON answer keeps the wording for a server
 * that ignored `stream: true`; anything else says `not an event stream (content-type …)`. `complete` is false when
 * `text` is only the head of the body.
 */
export function notEventStreamError(baseURL: string, contentType: string, text: string, complete = true): LlmError {
  // a body read only up to the snippet cap may end inside a secret: that tail goes too
  const snippet = snippetOf(complete ? text : redactTruncated(text))
  if (isJsonType(contentType)) {
    return new LlmError(
      `expected an event stream from ${baseURL}, got application/json: ${snippet}`,
      'MALFORMED_RESPONSE',
    )
  }
  const type = contentType.trim() === '' ? 'none' : oneLineType(contentType)
  return new LlmError(
    `response from ${baseURL} is not an event stream (content-type ${type}): ${snippet}`,
    'MALFORMED_RESPONSE',
  )
}

/** True when the content type says event stream. */
export function isEventStreamType(contentType: string): boolean {
  return contentType.toLowerCase().includes('text/event-stream')
}

/** True for a JSON content type: such an answer is never read as an event stream. */
export function isJsonType(contentType: string): boolean {
  return contentType.toLowerCase().includes('application/json')
}

function oneLineType(contentType: string): string {
  const flat = contentType.replace(/\p{C}/gu, ' ').replace(/\s+/g, ' ').trim()
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat
}
