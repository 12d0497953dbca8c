/**
 * JSON text for records of any depth. `JSON.stringify` recurses and throws `RangeError` (stack overflow) a few
 * thousand levels deep, so a record that deep could never be written: its batch would fail on every retry and the
 * session would never save again. Appends refuse such data (the session's JSON limit), but a session may still hold
 * it (a log written before the limit, a seed adopted from persistence); those records are written by an iterative
 * serializer that produces the same text.
 */

/**
 * `JSON.stringify(value)`, falling back to an iterative serializer when the native one overflows the stack. The
 * fallback writes exactly what `JSON.stringify` writes for plain records and arrays: keys in insertion order,
 * strings and numbers via `JSON.stringify`, `undefined` members of objects skipped and of arrays written as `null`.
 */
export function stringifyRecord(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch (error) {
    if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) throw error
    return stringifyIteratively(value)
  }
}

type Item = { readonly text: string } | { readonly value: unknown }

/** The explicit-stack serializer (see {@link stringifyRecord}). */
export function stringifyIteratively(value: unknown): string {
  const out: string[] = []
  const stack: Item[] = [{ value }]
  while (stack.length > 0) {
    const item = stack.pop()!
    if ('text' in item) {
      out.push(item.text)
      continue
    }
    const v = item.value
    if (v === null || typeof v !== 'object') {
      const text = JSON.stringify(v)
      // A top-level or array member that JSON cannot represent is written as null, like JSON.stringify does.
      out.push(text === undefined ? 'null' : text)
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
    const record = v as Record<string, unknown>
    const keys = Object.keys(record).filter((key) => isWritten(record[key]))
    out.push('{')
    stack.push({ text: '}' })
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!
      stack.push({ value: record[key] })
      stack.push({ text: `${JSON.stringify(key)}:` })
      if (i > 0) stack.push({ text: ',' })
    }
  }
  return out.join('')
}

/** Whether an object member is written at all: `JSON.stringify` skips `undefined`, functions and symbols. */
function isWritten(value: unknown): boolean {
  const type = typeof value
  return type !== 'undefined' && type !== 'function' && type !== 'symbol'
}
