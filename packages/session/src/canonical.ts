/**
 * Canonical JSON and SHA-256 digests (docs/provability.md#canonical-json). The loop that writes `request/digest` and
 * the verifier that checks it share this one implementation.
 */
import { createHash } from 'node:crypto'

/**
 * JSON text with object keys sorted by UTF-16 code unit at every level and no whitespace; numbers and strings as
 * `JSON.stringify` writes them. Only lossless JSON values (see json.ts) are expected. Iterative, so deep values
 * do not overflow the stack.
 */
export function canonicalJson(value: unknown): string {
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

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}
