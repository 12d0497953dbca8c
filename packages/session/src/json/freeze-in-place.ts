/**
 * The restore-mode freezer (docs/surface-and-reconstruction.md#snapshot-and-restore-modes). Restore mode adopts fresh
 * values persistence just parsed, without copying or JSON checks, so this only freezes. It differs from `deepFreeze`
 * of `@bridle/llm` in two costs that dominate a reload: it records nothing in the `deepFreeze` registry (one weak-set
 * insert per object), and it reads plain objects and arrays through their own enumerable keys rather than one
 * property descriptor per key. Together those made freezing cost several times the `JSON.parse` of the same data.
 */
import { isDeepFrozen, isWalkable } from '@bridle/llm'

/**
 * Freezes every object reachable from `root`, at any depth and cycle-safely, and returns `root`. Plain objects and
 * arrays (the JSON vocabulary restore mode accepts) are descended through their own enumerable keys / their indices;
 * any other object is walked like `deepFreeze` walks it (own data properties only, accessors neither invoked nor
 * descended). Abort signals and binary buffers are left alone. A root `deepFreeze` recorded is returned as is; below
 * the root the registry is not consulted (fresh data is never in it, and a recorded subtree is merely walked again).
 */
export function freezeInPlace<T>(root: T): T {
  if (!isWalkable(root) || isDeepFrozen(root)) return root
  // Fresh JSON data (a reload: every stored event) takes the recursive path, several times cheaper than the work
  // list. Anything it does not expect hands the whole value to the work list, which finishes the job.
  if (!freezeFresh(root as object, 0)) freezeByWorkList(root as object)
  return root
}

/** Below this depth the fresh path recurses; deeper values go to the work list, which needs no stack. */
const MAX_FRESH_DEPTH = 200

const hasOwn = Object.prototype.hasOwnProperty

/**
 * Freezes a tree of unfrozen plain objects and arrays, recursively. Returns false, leaving the rest to the caller, at
 * the first value that is not one (another class), is frozen already (a cycle, or a subtree frozen elsewhere) or lies
 * too deep.
 */
function freezeFresh(value: object, depth: number): boolean {
  const proto = Object.getPrototypeOf(value)
  if (proto === Array.prototype) {
    if (Object.isFrozen(value) || depth > MAX_FRESH_DEPTH) return false
    Object.freeze(value)
    const array = value as unknown[]
    for (let i = 0; i < array.length; i++) {
      const child = array[i]
      if (typeof child === 'object' && child !== null && !freezeFresh(child, depth + 1)) return false
    }
    return true
  }
  if (proto !== Object.prototype && proto !== null) return false
  if (Object.isFrozen(value) || depth > MAX_FRESH_DEPTH) return false
  Object.freeze(value)
  const record = value as Record<string, unknown>
  // `for…in` reads the engine's enum cache (no key array per object); the own-key test skips anything enumerable a
  // prototype might have gained.
  for (const key in record) {
    if (!hasOwn.call(record, key)) continue
    const child = record[key]
    if (typeof child === 'object' && child !== null && !freezeFresh(child, depth + 1)) return false
  }
  return true
}

/** The general walk: iterative (any depth), cycle-safe, and finishing a value the fresh path froze in part. */
function freezeByWorkList(root: object): void {
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
}

/** How an entered object is descended: by index, by own enumerable keys, or by own data-property descriptors. */
const ARRAY = 0
const RECORD = 1
const OTHER = 2

/**
 * The work list of one call. An object is frozen when first reached, which marks it for the rest of the walk, so
 * fresh (unfrozen) data needs no visited set. An object reached already frozen was either frozen earlier in this walk
 * or frozen before it (shallowly elsewhere, or by the fresh path); those are tracked in a set (created on first need)
 * and walked once, so cycles end and a shallowly frozen subtree still gets frozen to its leaves.
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
