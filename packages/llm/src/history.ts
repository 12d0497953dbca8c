/**
 * History lineage: frozen message arrays built as "an earlier frozen history plus new messages", with the earlier
 * array remembered. Per-step consumers (replay stripping here, the request digester in `@bridle/session`) then know
 * the new array begins with every element of a history they already processed, and read only the new messages
 * instead of comparing the whole history element by element on every step.
 */
import type { Message } from './message.js'

/**
 * A weak map kept on `globalThis` under `key`, so every copy of this module (two versions installed side by side)
 * shares it, as the `deepFreeze` registry is shared.
 */
function sharedWeakMap<K extends object, V>(key: symbol): WeakMap<K, V> {
  const holder = globalThis as unknown as Record<symbol, WeakMap<K, V> | undefined>
  let map = holder[key]
  if (!(map instanceof WeakMap)) {
    map = new WeakMap()
    Object.defineProperty(globalThis, key, { value: map, configurable: true, enumerable: false, writable: false })
  }
  return map
}

/** History → the frozen history it was built from (its immediate base). */
const lineage = sharedWeakMap<readonly Message[], readonly Message[]>(Symbol.for('bridle.llm.historyLineage'))

/**
 * A chain of extensions: histories each built by extending the chain's latest one, so of any two members the shorter
 * is a prefix of the longer. It holds no history, only the latest member's length.
 */
interface Chain {
  length: number
}

/** History → its chain. */
const chains = sharedWeakMap<readonly Message[], Chain>(Symbol.for('bridle.llm.historyChain'))

/**
 * Returns a new frozen array holding the elements of `base` followed by `additions`, and records `base` as its
 * base. The record is true by construction and stays true: both arrays are frozen. `base` must be frozen (else a
 * `TypeError`), since a mutable base could change after the fact.
 *
 * The record holds `base` strongly, and extending `base` drops `base`'s own record: a history keeps at most the one
 * before it alive, never a chain of every earlier array (O(steps × length) memory). A `WeakRef` would not do: its
 * target stays alive until the current job ends, and turns run back to back in one job (a test, a batch) kept every
 * previous array alive (tens of KB per turn at 10,000 messages).
 */
export function extendHistory(base: readonly Message[], additions: readonly Message[]): readonly Message[] {
  if (!Object.isFrozen(base)) throw new TypeError('extendHistory needs a frozen base history')
  // Spread, not `concat`: V8 copies a frozen array through its slow generic path in `concat`, `slice` and `filter`
  // (about 10× the time of a plain array's copy at 10,000 messages); iteration stays on the fast path.
  const next = Object.freeze([...base, ...additions])
  lineage.delete(base)
  lineage.set(next, base)
  let chain = chains.get(base)
  if (chain === undefined) chains.set(base, (chain = { length: base.length }))
  // Extending an earlier member (a branch) starts a new chain: `next` need not begin with the later members.
  else if (chain.length !== base.length) chain = { length: base.length }
  chain.length = next.length
  chains.set(next, chain)
  return next
}

/**
 * The chain of extensions `history` belongs to, or `undefined` when no `extendHistory` call built or extended it.
 * Two histories with the same chain: the shorter (or either, at equal length) is an element-wise prefix of the
 * other, so a per-step consumer can key what it computed by the chain and read only the messages past it, however
 * many histories were built in between. The chain holds no history.
 */
export function historyChainOf(history: readonly Message[]): object | undefined {
  return chains.get(history)
}

/**
 * True when `history` is known, without reading its elements, to begin with every element of `earlier`: the same
 * array, built from it by `extendHistory`, or a later member of its chain.
 */
export function extendsHistory(history: readonly Message[], earlier: readonly Message[]): boolean {
  if (history === earlier || lineage.get(history) === earlier) return true
  const chain = chains.get(history)
  return chain !== undefined && chains.get(earlier) === chain && earlier.length <= history.length
}

/**
 * The frozen history `history` was built from by {@link extendHistory} (a prefix of it), or `undefined` when it was
 * not built that way or has since been extended itself (its record is dropped then; a consumer comparing against a
 * base it kept, or keyed by it in a weak map, falls back to comparing elements).
 */
export function historyBaseOf(history: readonly Message[]): readonly Message[] | undefined {
  return lineage.get(history)
}
