/**
 * One explicit-stack JSON writer for values of any depth. `JSON.stringify` and any recursive writer overflow the
 * stack a few thousand levels deep; canonical JSON (canonical.ts) and session-jsonl's record lines both fall back to
 * this walker for such values, each with its own rules for key order and for values JSON cannot represent.
 */

export interface JsonWalkOptions {
  /** Sort object keys by UTF-16 code unit at every level (canonical JSON); otherwise keys keep insertion order. */
  readonly sortKeys: boolean
  /**
   * Called with a value JSON cannot represent (`undefined`, a function, a symbol), and expected to throw. Without it
   * the walker writes what `JSON.stringify` writes: `null` for such an array member or top-level value, nothing for
   * such an object member.
   */
  readonly unrepresentable?: (value: unknown) => never
}

type Item = { readonly text: string } | { readonly value: unknown }

/** JSON text of `value` with no whitespace, written without recursion (see {@link JsonWalkOptions}). */
export function writeJsonIteratively(value: unknown, options: JsonWalkOptions): string {
  const { sortKeys, unrepresentable } = options
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
      if (text === undefined) {
        unrepresentable?.(v)
        out.push('null')
      } else out.push(text)
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
    let keys = Object.keys(record)
    if (unrepresentable === undefined) keys = keys.filter((key) => isWritten(record[key]))
    if (sortKeys) keys.sort()
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

/** Whether `JSON.stringify` writes an object member at all: it skips `undefined`, functions and symbols. */
function isWritten(value: unknown): boolean {
  const type = typeof value
  return type !== 'undefined' && type !== 'function' && type !== 'symbol'
}
