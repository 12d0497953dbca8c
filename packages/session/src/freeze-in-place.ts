/**
 * The restore-mode freezer (session.md §7: "an iterative in-place freezer in restore mode"). Restore mode adopts fresh
 * values persistence just parsed, without copying or JSON checks, so this only freezes. It differs from `deepFreeze`
 * of `@bridle/llm` in two costs that dominate a reload: it records nothing in the `deepFreeze` registry (one weak-set
 * insert per object), and it reads plain objects and arrays through their own enumerable keys rather than one
 * property descriptor per key. Together those made freezing cost several times the `JSON.parse` of the same data.
 */
import { isDeepFrozen } from '@bridle/llm'

/**
 * Freezes every object reachable from `root`, iteratively (any depth) and cycle-safely, and returns `root`. Plain
 * objects and arrays (the JSON vocabulary restore mode accepts) are descended through `Object.keys` / their indices;
 * any other object is walked like `deepFreeze` walks it (own data properties only, accessors neither invoked nor
 * descended). Abort signals and binary buffers are left alone; objects `deepFreeze` already recorded are skipped.
 */
export function freezeInPlace<T>(root: T): T {
  if (!isWalkable(root) || isDeepFrozen(root)) return root
  const seen = new Set<object>([root])
  const stack: object[] = [root]
  while (stack.length > 0) {
    const current = stack.pop()!
    Object.freeze(current)
    const proto = Object.getPrototypeOf(current)
    if (proto === Array.prototype) {
      const array = current as unknown[]
      for (let i = 0; i < array.length; i++) visit(array[i], seen, stack)
    } else if (proto === Object.prototype || proto === null) {
      const record = current as Record<string, unknown>
      for (const key of Object.keys(record)) visit(record[key], seen, stack)
    } else {
      for (const key of Reflect.ownKeys(current)) {
        const descriptor = Reflect.getOwnPropertyDescriptor(current, key)
        if (descriptor !== undefined && 'value' in descriptor) visit(descriptor.value, seen, stack)
      }
    }
  }
  return root
}

function visit(child: unknown, seen: Set<object>, stack: object[]): void {
  if (typeof child !== 'object' || child === null || seen.has(child) || !isWalkable(child) || isDeepFrozen(child)) return
  seen.add(child)
  stack.push(child)
}

/** What the freezer descends into, as for `deepFreeze`: objects other than abort signals and binary data. */
function isWalkable(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  if (proto === Object.prototype || proto === Array.prototype || proto === null) return true
  if (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal) return false
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return false
  if (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer) return false
  const tag = Object.prototype.toString.call(value)
  return tag !== '[object AbortSignal]' && tag !== '[object ArrayBuffer]' && tag !== '[object SharedArrayBuffer]'
}
