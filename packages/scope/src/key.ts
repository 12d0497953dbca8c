/**
 * A scope key: any object (or function), compared by identity. Never a string.
 * An Agent object or a preset descriptor are typical keys.
 */
export type ScopeKey = object

/** True for values usable as a scope key: non-null objects and functions. */
export function isScopeKey(value: unknown): value is ScopeKey {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
}

/**
 * Throws `TypeError('@bridle/scope: scope key must be an object')` unless `value` is a scope key.
 * Exists because the parent relation is a WeakMap: a primitive would otherwise fail later, less clearly.
 */
export function assertScopeKey(value: unknown): asserts value is ScopeKey {
  if (!isScopeKey(value)) throw new TypeError('@bridle/scope: scope key must be an object')
}
