/**
 * `deepFreeze` and the loop-request marker.
 *
 * Messages are frozen by their constructors, so when the agent loop freezes a request whose history holds
 * thousands of messages it must not walk them again. A process-wide registry remembers the root of every successful
 * call (whose whole subtree that call froze); a later walk stops at such objects in O(1).
 *
 * Only roots are recorded, not every object below them: values are handed around by their roots (a message, an
 * event, a header), and an entry per object made the registry the largest per-message cost in memory (several entries
 * per message, a few MB for a 10,000-message session) and, once a large session died, made the next insert stall
 * while the weak table shrank (tens of milliseconds). An interior object passed to a later call is walked again,
 * which is correct (it is frozen already) and costs only its own size.
 */

const DEEP_FROZEN_KEY = Symbol.for('bridle.llm.deepFrozen')
const LOOP_REQUESTS_KEY = Symbol.for('bridle.llm.loopRequests')

/** Returns the registry stored on `globalThis` under `key`, creating it once (shared by module copies). */
function sharedWeakSet(key: symbol): WeakSet<object> {
  const holder = globalThis as unknown as Record<symbol, WeakSet<object> | undefined>
  let set = holder[key]
  if (!(set instanceof WeakSet)) {
    set = new WeakSet<object>()
    Object.defineProperty(globalThis, key, { value: set, configurable: true, enumerable: false, writable: false })
  }
  return set
}

const deepFrozen = sharedWeakSet(DEEP_FROZEN_KEY)
const loopRequests = sharedWeakSet(LOOP_REQUESTS_KEY)
const objectToString = Object.prototype.toString

/**
 * True for values `deepFreeze` freezes and descends into: non-null objects that are not functions,
 * abort signals (a frozen request must stay cancellable) or binary buffers (freezing a view throws).
 */
export function isWalkable(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  // Fast path for the JSON vocabulary: plain objects and arrays are always walked.
  if (proto === Object.prototype || proto === Array.prototype || proto === null) return true
  if (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal) return false
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return false
  if (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer) return false
  const tag = objectToString.call(value)
  return tag !== '[object AbortSignal]' && tag !== '[object ArrayBuffer]' && tag !== '[object SharedArrayBuffer]'
}

/**
 * Freezes every object reachable from `root` through own data properties (string and symbol keys) and
 * returns `root`. Iterative and cycle-safe. Accessors are neither invoked nor descended; functions,
 * `AbortSignal`s and binary buffers/views are left alone; Map/Set entries are not walked.
 *
 * Roots of earlier successful calls are skipped without being visited, so freezing a new request around
 * pre-frozen messages costs O(new data). The root is recorded only when the whole walk succeeded; if
 * `Object.freeze` throws (an exotic proxy), nothing is recorded and the error propagates.
 */
export function deepFreeze<T>(root: T): T {
  if (!isWalkable(root) || deepFrozen.has(root)) return root
  const visited = new Set<object>([root])
  const stack: object[] = [root]
  while (stack.length > 0) {
    const current = stack.pop()!
    Object.freeze(current)
    for (const key of Reflect.ownKeys(current)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(current, key)
      if (descriptor === undefined || !('value' in descriptor)) continue
      const child: unknown = descriptor.value
      if (!isWalkable(child) || deepFrozen.has(child) || visited.has(child)) continue
      visited.add(child)
      stack.push(child)
    }
  }
  deepFrozen.add(root)
  return root
}

/** True when `value` is the root of a previous successful `deepFreeze` call (so frozen to the leaves). */
export function isDeepFrozen(value: unknown): boolean {
  return typeof value === 'object' && value !== null && deepFrozen.has(value)
}

/**
 * Marks `request` as built by the agent loop and returns it. Identity-based: clones are unmarked.
 * Marking neither freezes nor validates (the loop freezes first). `llm/stream` listeners use the mark to
 * know the request must be read, never rewritten.
 */
export function markLoopRequest<T extends object>(request: T): T {
  loopRequests.add(request)
  return request
}

/** True when this exact object was passed to `markLoopRequest`. */
export function isLoopRequest(value: unknown): boolean {
  return typeof value === 'object' && value !== null && loopRequests.has(value)
}
