/**
 * The one limit on JSON that enters a session: how deep it nests and how large its text is.
 *
 * Everything a session records is serialized with `JSON.stringify` (the JSONL writer, provider request bodies),
 * cloned with `structuredClone` and parsed back; the first two recurse, so a value nested a few thousand levels deep
 * overflows the stack wherever it goes, and a value whose text passes V8's string limit cannot be written at all. A
 * value within these limits is one every writer can serialize and every reader can parse, with a wide margin.
 * Entry points check it before anything is recorded: `session.append` (and so the inbox and `agent.followup`),
 * seeded sessions, and the message constructors.
 */
import { Buffer } from 'node:buffer'
import { HarnessError } from './errors.js'

/** The most levels of arrays and objects one value may nest (`[]` is one level, `[[1]]` two). */
export const MAX_JSON_DEPTH = 1000

/** The most UTF-8 bytes the JSON text of one value may take: 32 MiB. */
export const MAX_JSON_BYTES = 32 * 1024 * 1024

/** A depth and a size limit. */
export interface JsonLimits {
  readonly maxDepth: number
  readonly maxBytes: number
}

/** The limits every session entry point enforces. */
export const JSON_LIMITS: JsonLimits = Object.freeze({ maxDepth: MAX_JSON_DEPTH, maxBytes: MAX_JSON_BYTES })

/**
 * Levels and bytes kept free for the event that records a message (`{message}`, `{inserted: [message]}` and the
 * event's other fields), so a message the constructors accept is never refused by `append` for its size or depth.
 */
export const MESSAGE_ENVELOPE_ROOM: JsonLimits = Object.freeze({ maxDepth: 4, maxBytes: 64 * 1024 })

/** The limits the message constructors enforce on one message: {@link JSON_LIMITS} less the envelope room. */
export const MESSAGE_JSON_LIMITS: JsonLimits = Object.freeze({
  maxDepth: MAX_JSON_DEPTH - MESSAGE_ENVELOPE_ROOM.maxDepth,
  maxBytes: MAX_JSON_BYTES - MESSAGE_ENVELOPE_ROOM.maxBytes,
})

/**
 * Which limit a value broke and where. `path` is the first place the limit was passed (`$` is the value, then
 * `.key` / `[index]` segments; a deep path is shortened with `…`). For `size`, `bytes` is the value's JSON size
 * (or, when the value cannot even be measured as one string, a lower bound).
 */
export type JsonLimitViolation =
  | { readonly kind: 'depth'; readonly path: string; readonly limit: number }
  | { readonly kind: 'size'; readonly path: string; readonly limit: number; readonly bytes: number }

/** Renders a byte count for messages: `32 MiB`, `31.9 MiB`, `812 KiB`, `97 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${trim(bytes / (1024 * 1024))} MiB`
  if (bytes >= 1024) return `${trim(bytes / 1024)} KiB`
  return `${bytes} bytes`
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1)
}

/**
 * What was wrong, without the subject: `nests deeper than the 1000-level JSON limit (at $.a[0]…)` or
 * `is 42467328 bytes as JSON, over the 32 MiB limit (33554432 bytes; passed at $.text)`.
 */
export function describeJsonLimitViolation(violation: JsonLimitViolation): string {
  if (violation.kind === 'depth') {
    return `nests deeper than the ${violation.limit}-level JSON limit (at ${violation.path})`
  }
  const { bytes, limit, path } = violation
  return `is ${bytes} bytes as JSON, over the ${formatBytes(limit)} limit (${limit} bytes; passed at ${path})`
}

/**
 * A value refused for its depth or size. `code` is `JSON_TOO_DEEP` or `JSON_TOO_LARGE`; `violation` says where.
 * The message names the subject (`session event "x" carries data that …`).
 */
export class JsonLimitError extends HarnessError {
  override name = 'JsonLimitError'
  readonly violation: JsonLimitViolation

  constructor(subject: string, violation: JsonLimitViolation) {
    const code = violation.kind === 'depth' ? 'JSON_TOO_DEEP' : 'JSON_TOO_LARGE'
    super(`${subject} ${describeJsonLimitViolation(violation)}`, code)
    this.violation = violation
  }
}

/** Segments kept at each end of a reported path; a path nested 1,000 levels deep is not a useful message. */
const PATH_HEAD = 8
const PATH_TAIL = 2

/** Joins path segments (`.key` / `[index]`) after `root`, shortening a long path to its ends. */
export function jsonPath(root: string, segments: readonly string[]): string {
  if (segments.length <= PATH_HEAD + PATH_TAIL + 1) return root + segments.join('')
  const skipped = segments.length - PATH_HEAD - PATH_TAIL
  return `${root}${segments.slice(0, PATH_HEAD).join('')}…(${skipped} more)…${segments.slice(-PATH_TAIL).join('')}`
}

/** The path segment of one key: `[3]` for an array index, `.name` for an identifier, `["a b"]` otherwise. */
export function pathSegment(key: string, inArray: boolean): string {
  if (inArray) return `[${key}]`
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
}

// Characters `JSON.stringify` writes as an escape longer than their UTF-8: quote, backslash, controls, lone surrogates.
const ESCAPED = /["\\\u0000-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
// A cheaper single-class scan that finds every string that may need one (paired surrogates included).
const MAY_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/
const SHORT_ESCAPES = new Set(['"', '\\', '\b', '\f', '\n', '\r', '\t'])

/** The exact UTF-8 size of `JSON.stringify(text)`, quotes included. */
export function jsonStringBytes(text: string): number {
  if (!MAY_ESCAPE.test(text)) return Buffer.byteLength(text, 'utf8') + 2
  try {
    // Escapes are all ASCII, so the byte length of the escaped text is exact; native, so fast for long strings.
    return Buffer.byteLength(JSON.stringify(text), 'utf8')
  } catch {
    // The escaped text would pass V8's string limit: count the escapes one by one instead.
    let bytes = Buffer.byteLength(text, 'utf8') + 2
    for (const [ch] of text.matchAll(ESCAPED)) {
      if (SHORT_ESCAPES.has(ch))
        bytes += 1 // `\n` is 2 bytes for 1
      else if (ch.charCodeAt(0) < 0x20)
        bytes += 5 // `\u0001` is 6 bytes for 1
      else bytes += 3 // a lone surrogate: `\udXXX` is 6 bytes for the 3 of its UTF-8 replacement
    }
    return bytes
  }
}

/** The JSON size of a scalar (string, finite number, boolean, null). */
function jsonScalarBytes(value: unknown): number {
  if (typeof value === 'string') return jsonStringBytes(value)
  if (typeof value === 'number') return String(value).length
  if (typeof value === 'boolean') return value ? 4 : 5
  return 4 // null (and anything JSON writes as null)
}

/**
 * An upper bound of {@link jsonStringBytes} in O(1): each UTF-16 unit becomes at most 6 bytes. Walks add these up
 * and measure exactly only when the bound passes the limit, so ordinary values cost no string scan.
 */
export function jsonStringBytesBound(text: string): number {
  return text.length * 6 + 2
}

/**
 * Whether `value` fits `limits` (default {@link JSON_LIMITS}), and if not, which limit it broke first and where.
 * Iterative (any depth is measured without recursion) and stops at the first level past the depth limit. Reads
 * plain data only: own enumerable string keys of objects and the elements of arrays. Sizes are exact for lossless
 * JSON (what sessions accept); shared references are measured each time they appear, as they serialize.
 */
export function jsonLimitViolation(value: unknown, limits: JsonLimits = JSON_LIMITS): JsonLimitViolation | undefined {
  const depth = depthViolation(value, limits.maxDepth)
  if (depth !== undefined) return depth
  let bound = 0
  const over = walkSizes(
    value,
    (piece) => {
      bound += piece
      return bound > limits.maxBytes
    },
    true,
  )
  if (over === undefined) return undefined
  return sizeViolation(value, limits.maxBytes)
}

/** The exact size of a value known to be over `maxBytes` by its bound: the total, and where the limit was passed. */
function sizeViolation(value: unknown, maxBytes: number): JsonLimitViolation | undefined {
  let total = 0
  let passedAt: string | undefined
  walkSizes(
    value,
    (piece, path) => {
      total += piece
      if (passedAt === undefined && total > maxBytes) passedAt = path()
      return false
    },
    false,
  )
  return passedAt === undefined ? undefined : { kind: 'size', path: passedAt, limit: maxBytes, bytes: total }
}

interface Frame {
  readonly node: object
  readonly keys: readonly string[]
  readonly isArray: boolean
  next: number
}

function keysOf(node: object): { keys: string[]; isArray: boolean } {
  if (Array.isArray(node)) return { keys: Array.from({ length: node.length }, (_, i) => String(i)), isArray: true }
  return { keys: Object.keys(node), isArray: false }
}

function segmentsOf(stack: readonly Frame[]): string[] {
  const segments: string[] = []
  for (const frame of stack) segments.push(pathSegment(frame.keys[frame.next - 1]!, frame.isArray))
  return segments
}

function depthViolation(value: unknown, maxDepth: number): JsonLimitViolation | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const stack: Frame[] = [{ node: value, ...keysOf(value), next: 0 }]
  if (stack.length > maxDepth) return { kind: 'depth', path: '$', limit: maxDepth }
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.next >= frame.keys.length) {
      stack.pop()
      continue
    }
    const child = (frame.node as Record<string, unknown>)[frame.keys[frame.next++]!]
    if (typeof child !== 'object' || child === null) continue
    if (stack.length >= maxDepth) return { kind: 'depth', path: jsonPath('$', segmentsOf(stack)), limit: maxDepth }
    stack.push({ node: child, ...keysOf(child), next: 0 })
  }
  return undefined
}

/**
 * Visits the JSON size of a value piece by piece (punctuation, keys, scalars) in serialization order; `add` returns
 * true to stop. With `bound`, strings count by their O(1) upper bound. Returns the stopping path thunk or undefined.
 */
function walkSizes(
  value: unknown,
  add: (bytes: number, path: () => string) => boolean,
  bound: boolean,
): true | undefined {
  const size = (v: unknown) => (bound && typeof v === 'string' ? jsonStringBytesBound(v) : jsonScalarBytes(v))
  if (typeof value !== 'object' || value === null) return add(size(value), () => '$') ? true : undefined
  const stack: Frame[] = [{ node: value, ...keysOf(value), next: 0 }]
  const here = () => jsonPath('$', segmentsOf(stack))
  if (add(2, here)) return true
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.next >= frame.keys.length) {
      stack.pop()
      continue
    }
    const key = frame.keys[frame.next++]!
    const child = (frame.node as Record<string, unknown>)[key]
    if (!frame.isArray && (child === undefined || typeof child === 'function' || typeof child === 'symbol')) continue
    let piece = frame.next > 1 ? 1 : 0 // the comma
    if (!frame.isArray) piece += (bound ? jsonStringBytesBound(key) : jsonStringBytes(key)) + 1 // "key":
    if (typeof child === 'object' && child !== null) {
      if (add(piece + 2, here)) return true
      stack.push({ node: child, ...keysOf(child), next: 0 })
    } else if (add(piece + size(child), here)) {
      return true
    }
  }
  return undefined
}
