/**
 * The restore-mode freezer (docs/surface-and-reconstruction.md#snapshot-and-restore-modes). Restore mode adopts fresh
 * values persistence just parsed, without copying or JSON checks, so this only freezes. It differs from `deepFreeze`
 * of `@bridle/llm` in two costs that dominate a reload: it records nothing in the `deepFreeze` registry (one weak-set
 * insert per object), and it reads plain objects and arrays through their own enumerable keys rather than one
 * property descriptor per key. Together those made freezing cost several times the `JSON.parse` of the same data.
 */
import { isDeepFrozen, isWalkable } from '@bridle/llm'

/**
 * Freezes every object reachable from `root`, iteratively (any depth) and cycle-safely, and returns `root`. Plain
 * objects and arrays (the JSON vocabulary restore mode accepts) are descended through `Object.keys` / their indices;
 * any other object is walked like `deepFreeze` walks it (own data properties only, accessors neither invoked nor
 * descended). Abort signals and binary buffers are left alone. A root `deepFreeze` recorded is returned as is; below
 * the root the registry is not consulted (fresh data is never in it, and a recorded subtree is merely walked again).
 */
export function freezeInPlace<T>(root: T): T {
  if (!isWalkable(root) || isDeepFrozen(root)) return root
  const walk = new Walk()
  walk.enter(root)
  const { stack, kinds } = walk
  while (stack.length > 0) {
    const current = stack.pop()!
    const kind = kinds.pop()!
    if (kind === ARRAY) {
      const array = current as unknown[]
      for (let i = 0; i < array.length; i++) {
        const child = array[i]
        if (typeof child === 'object' && child !== null) walk.enter(child)
      }
    } else if (kind === RECORD) {
      const record = current as Record<string, unknown>
      for (const key of Object.keys(record)) {
        const child = record[key]
        if (typeof child === 'object' && child !== null) walk.enter(child)
      }
    } else {
      for (const key of Reflect.ownKeys(current)) {
        const descriptor = Reflect.getOwnPropertyDescriptor(current, key)
        if (descriptor !== undefined && 'value' in descriptor) walk.enter(descriptor.value)
      }
    }
  }
  return root
}

/** How an entered object is descended: by index, by own enumerable keys, or by own data-property descriptors. */
const ARRAY = 0
const RECORD = 1
const OTHER = 2

/**
 * The work list of one call. An object is frozen when first reached, which marks it for the rest of the walk, so
 * fresh (unfrozen) data needs no visited set. An object reached already frozen was either frozen earlier in this walk
 * or frozen shallowly elsewhere; those are tracked in a set (created on first need) and walked once, so cycles end
 * and a shallowly frozen subtree still gets frozen to its leaves.
 */
class Walk {
  readonly stack: object[] = []
  /** Parallel to `stack`: the prototype class of each entry, read once when it was entered. */
  readonly kinds: number[] = []
  private frozenBefore: Set<object> | undefined

  enter(value: unknown): void {
    if (typeof value !== 'object' || value === null) return
    const proto = Object.getPrototypeOf(value)
    const kind = proto === Array.prototype ? ARRAY : proto === Object.prototype || proto === null ? RECORD : OTHER
    if (kind === OTHER && !isWalkable(value)) return
    if (!Object.isFrozen(value)) {
      Object.freeze(value)
    } else {
      this.frozenBefore ??= new Set()
      if (this.frozenBefore.has(value)) return
      this.frozenBefore.add(value)
    }
    this.stack.push(value)
    this.kinds.push(kind)
  }
}
