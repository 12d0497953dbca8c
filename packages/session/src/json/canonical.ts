/**
 * Canonical JSON and SHA-256 digests (docs/provability.md#canonical-json). The loop that writes `request/digest` and
 * the verifier that checks it share this one implementation.
 */
import * as crypto from 'node:crypto'
import { writeJsonIteratively } from './json-walk.js'

/** Nesting depth up to which the recursive writer is used; deeper values take the iterative one. */
const MAX_RECURSION = 256

/** Thrown by the recursive writer past `MAX_RECURSION`, caught by `canonicalJson`. */
const TOO_DEEP = Symbol('too deep')

function notJson(value: unknown): never {
  throw new TypeError(`canonicalJson: ${typeof value} is not a JSON value`)
}

function primitive(value: unknown): string {
  return JSON.stringify(value) ?? notJson(value)
}

/** The recursive writer: string concatenation, no work items (several times faster on messages than the stack walk). */
function write(value: unknown, depth: number): string {
  if (value === null || typeof value !== 'object') return primitive(value)
  if (depth > MAX_RECURSION) throw TOO_DEEP
  if (Array.isArray(value)) {
    let out = '['
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + write(value[i], depth + 1)
    return out + ']'
  }
  const keys = Object.keys(value).sort()
  let out = '{'
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    out += (i > 0 ? ',' : '') + JSON.stringify(key) + ':' + write((value as Record<string, unknown>)[key], depth + 1)
  }
  return out + '}'
}

/**
 * JSON text with object keys sorted by UTF-16 code unit at every level and no whitespace; numbers and strings as
 * `JSON.stringify` writes them. Only lossless JSON values (see json.ts) are expected. Values nested deeper than a few
 * hundred levels are written iteratively, so they do not overflow the stack.
 */
export function canonicalJson(value: unknown): string {
  try {
    return write(value, 0)
  } catch (error) {
    if (error !== TOO_DEEP) throw error
    return writeJsonIteratively(value, { sortKeys: true, unrepresentable: notJson })
  }
}

/** `crypto.hash` (Node 20.12+): a one-shot digest without a `Hash` object, noticeably cheaper per small input. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return oneShot !== undefined
    ? oneShot('sha256', text, 'hex')
    : crypto.createHash('sha256').update(text, 'utf8').digest('hex')
}
