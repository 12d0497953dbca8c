/**
 * The deep clone of tool parameters that every assembly takes. `structuredClone` serializes and deserializes through
 * the structured-clone wire format, which costs several microseconds even for a small schema and, with 50 tools, was
 * the largest single cost of a step. Tool parameters are nearly always plain JSON trees, for which a direct copy gives
 * exactly what `structuredClone` gives; anything else still goes through `structuredClone` (same result, same
 * `DataCloneError`).
 */
import { isDeepFrozen } from '@bridle/llm'

/** Deeper trees take `structuredClone`, so the recursive copy never comes near the stack limit. */
const MAX_DEPTH = 256

/** Deep-frozen roots already proven to be plain trees: they cannot change, so the proof holds for good. */
const provenPlain = new WeakSet<object>()

/** Plain record: `Object.prototype` or `null` prototype (`structuredClone` turns both into an ordinary object). */
const isPlainRecordProto = (proto: unknown) => proto === Object.prototype || proto === null

/**
 * True when `root` is a tree `copyTree` copies exactly like `structuredClone`: every object is an ordinary array
 * (dense, no extra own properties) or a plain record, all own properties are enumerable string-keyed data properties,
 * no object is reached twice (`structuredClone` would keep the sharing), every leaf is a primitive other than a
 * symbol (which `structuredClone` refuses), and the tree is at most `MAX_DEPTH` deep (the copy recurses).
 */
function isPlainTree(root: object): boolean {
  const seen = new Set<object>()
  const stack: object[] = [root]
  const depths: number[] = [0]
  while (stack.length > 0) {
    const current = stack.pop()!
    const depth = depths.pop()!
    if (seen.has(current) || depth > MAX_DEPTH) return false
    seen.add(current)
    const proto = Object.getPrototypeOf(current)
    const isArray = Array.isArray(current)
    if (isArray ? proto !== Array.prototype : !isPlainRecordProto(proto)) return false
    const keys = Reflect.ownKeys(current)
    if (isArray && keys.length !== (current as unknown[]).length + 1) return false // holes or extra properties
    for (const key of keys) {
      if (typeof key !== 'string') return false
      if (isArray && key === 'length') continue
      const descriptor = Reflect.getOwnPropertyDescriptor(current, key)!
      if (!('value' in descriptor) || !descriptor.enumerable) return false
      const value: unknown = descriptor.value
      if (typeof value === 'object' && value !== null) {
        stack.push(value)
        depths.push(depth + 1)
      } else if (typeof value === 'symbol' || typeof value === 'function') return false
    }
  }
  return true
}

/** Copies a tree `isPlainTree` accepted: new arrays and records, the same primitives. */
function copyTree(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length)
    for (let i = 0; i < value.length; i++) out[i] = copyTree(value[i])
    return out
  }
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key]
    // `__proto__` as an own key must stay an own property of the copy, as structuredClone keeps it.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: copyTree(child), writable: true, enumerable: true, configurable: true })
    else out[key] = copyTree(child)
  }
  return out
}

/**
 * `structuredClone(parameters)`, faster for plain JSON trees. A deep-frozen tree is checked once and then copied
 * directly on every later call; a mutable one is checked on every call (it may have changed).
 */
export function cloneParameters<T>(parameters: T): T {
  if (typeof parameters !== 'object' || parameters === null) return structuredClone(parameters)
  if (provenPlain.has(parameters)) return copyTree(parameters) as T
  if (!isPlainTree(parameters)) return structuredClone(parameters)
  if (isDeepFrozen(parameters)) provenPlain.add(parameters)
  return copyTree(parameters) as T
}
