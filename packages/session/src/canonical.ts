/**
 * Canonical JSON and SHA-256 digests (docs/provability.md#canonical-json). The loop that writes `request/digest` and
 * the verifier that checks it share this one implementation.
 */
import * as crypto from 'node:crypto'

/** Nesting depth up to which the recursive writer is used; deeper values take the iterative one. */
const MAX_RECURSION = 256

/** Thrown by the recursive writer past `MAX_RECURSION`, caught by `canonicalJson`. */
const TOO_DEEP = Symbol('too deep')

function primitive(value: unknown): string {
  const text = JSON.stringify(value)
  if (text === undefined) throw new TypeError(`canonicalJson: ${typeof value} is not a JSON value`)
  return text
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
    return canonicalJsonIterative(value)
  }
}

/** The iterative writer for deep values. */
function canonicalJsonIterative(value: unknown): string {
  const out: string[] = []
  // Work items: a value to write, or a literal piece of text.
  const stack: ({ text: string } | { value: unknown })[] = [{ value }]
  while (stack.length > 0) {
    const item = stack.pop()!
    if ('text' in item) {
      out.push(item.text)
      continue
    }
    const v = item.value
    if (v === null || typeof v !== 'object') {
      const text = JSON.stringify(v)
      if (text === undefined) throw new TypeError(`canonicalJson: ${typeof v} is not a JSON value`)
      out.push(text)
      continue
    }
    if (Array.isArray(v)) {
      out.push('[')
      stack.push({ text: ']' })
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] })
        if (i > 0) stack.push({ text: ',' })
      }
      continue
    }
    const keys = Object.keys(v).sort()
    out.push('{')
    stack.push({ text: '}' })
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!
      stack.push({ value: (v as Record<string, unknown>)[key] })
      stack.push({ text: `${JSON.stringify(key)}:` })
      if (i > 0) stack.push({ text: ',' })
    }
  }
  return out.join('')
}

/** `crypto.hash` (Node 20.12+): a one-shot digest without a `Hash` object, noticeably cheaper per small input. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return oneShot !== undefined
    ? oneShot('sha256', text, 'hex')
    : crypto.createHash('sha256').update(text, 'utf8').digest('hex')
}
