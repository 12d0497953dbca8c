/**
 * The length of a value's JSON text — what `JSON.stringify(value).length` is — counted without writing the text. Key
 * order changes no length, so it is also the length of the value's canonical JSON (docs/provability.md#canonical-json).
 * A replay measures every message of a log with it; writing each message out only to take its length would leave a
 * string behind per message.
 */

/** Nesting depth past which the count defers to `JSON.stringify` (no log message comes close). */
const MAX_DEPTH = 64

/** Length of `text` as a JSON string literal: quotes, and an escape for `"`, `\`, control characters, surrogates. */
function stringLength(text: string): number {
  const length = text.length + 2
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (c < 0xd800 || c > 0xdfff)) continue
    // rare: let JSON.stringify say how it escapes (short escapes, \u00XX, lone surrogates)
    return JSON.stringify(text).length
  }
  return length
}

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Whether JSON.stringify leaves `value` out of an object (and writes `null` for it in an array). */
const skipped = (value: unknown): boolean =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol'

function valueLength(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return stringLength(value)
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4
    case 'boolean':
      return value ? 4 : 5
    case 'object': {
      if (value === null) return 4
      if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function')
        return JSON.stringify(value)?.length ?? 0
      if (Array.isArray(value)) {
        let length = 2 + Math.max(0, value.length - 1)
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i]
          length += skipped(item) ? 4 : valueLength(item, depth + 1)
        }
        return length
      }
      if (!isPlainObject(value)) return JSON.stringify(value)?.length ?? 0
      let length = 2
      let first = true
      // own enumerable string keys, as JSON.stringify writes them (for…in lists no array of keys)
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue
        const item = (value as Record<string, unknown>)[key]
        if (skipped(item)) continue
        length += (first ? 0 : 1) + stringLength(key) + 1 + valueLength(item, depth + 1)
        first = false
      }
      return length
    }
    default:
      // bigint throws in JSON.stringify as it does here; undefined, functions and symbols have no text
      return JSON.stringify(value)?.length ?? 0
  }
}

/** `JSON.stringify(value)?.length ?? 0`, without the string. */
export function jsonTextLength(value: unknown): number {
  return valueLength(value, 0)
}
