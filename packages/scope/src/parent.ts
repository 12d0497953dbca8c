import { assertScopeKey, type ScopeKey } from './key.js'

/**
 * The process-wide parent relation between scope keys. Weakly held: a link lives exactly as long as its
 * child key object, and it survives scope disposal on purpose (a re-created scope for the same key keeps
 * its place in the chain).
 */
const parents = new WeakMap<ScopeKey, ScopeKey>()

/** The handle returned by {@link bindScopeParent}; only its holder may re-link the key. */
export interface ScopeBinding {
  /** Replace the key's parent with `parent`, after the same validation and cycle check as the first bind. */
  rebind(parent: ScopeKey): void
}

/**
 * True when `candidate` is `key` or one of its ancestors: `scopeChainOf(key).includes(candidate)` without
 * building the chain, for dispatch filters that ask it once per tagged listener.
 */
export function chainIncludes(key: ScopeKey, candidate: ScopeKey): boolean {
  for (let current: ScopeKey | undefined = key; current !== undefined; current = parents.get(current)) {
    if (current === candidate) return true
  }
  return false
}

function assertNoCycle(key: ScopeKey, parent: ScopeKey): void {
  if (chainIncludes(parent, key)) throw new Error('@bridle/scope: scope parent link would form a cycle')
}

/**
 * Record `parent` as the parent of `key` and return the only handle that can change it later.
 *
 * Throws a `TypeError` when either argument is not an object or function, an `Error` when `key` already has
 * a parent, and an `Error` when the link would form a cycle (binding a key to itself counts).
 */
export function bindScopeParent(key: ScopeKey, parent: ScopeKey): ScopeBinding {
  assertScopeKey(key)
  assertScopeKey(parent)
  if (parents.has(key)) {
    throw new Error(
      '@bridle/scope: scope key is already bound to a parent; re-linking requires the binding returned by the original bind',
    )
  }
  assertNoCycle(key, parent)
  parents.set(key, parent)
  return {
    rebind(next: ScopeKey): void {
      assertScopeKey(next)
      assertNoCycle(key, next)
      parents.set(key, next)
    },
  }
}

/** The recorded parent of `key`, or `undefined` when it has none. */
export function scopeParentOf(key: ScopeKey): ScopeKey | undefined {
  return parents.get(key)
}

/**
 * `[key, parent, grandparent, …]`, nearest first, read live on every call. `undefined` gives `[]`.
 * Registries use it to decide which layers a scope sees; dispatch uses it to decide which listeners hear.
 */
export function scopeChainOf(key: ScopeKey | undefined): ScopeKey[] {
  const chain: ScopeKey[] = []
  for (let current = key; current !== undefined; current = parents.get(current)) chain.push(current)
  return chain
}
