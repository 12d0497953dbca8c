/**
 * History lineage: frozen message arrays built as "an earlier frozen history plus new messages", with the earlier
 * array remembered. Per-step consumers (replay stripping here, the request digester in `@bridle/session`) then know
 * the new array begins with every element of a history they already processed, and read only the new messages
 * instead of comparing the whole history element by element on every step.
 */
import type { Message } from './message.js'

const LINEAGE_KEY = Symbol.for('bridle.llm.historyLineage')

type Lineage = WeakMap<readonly Message[], readonly Message[]>

/** The lineage registry on `globalThis`, shared by module copies like the `deepFreeze` registry. */
function lineageRegistry(): Lineage {
  const holder = globalThis as unknown as Record<symbol, Lineage | undefined>
  let map = holder[LINEAGE_KEY]
  if (!(map instanceof WeakMap)) {
    map = new WeakMap()
    Object.defineProperty(globalThis, LINEAGE_KEY, {
      value: map,
      configurable: true,
      enumerable: false,
      writable: false,
    })
  }
  return map
}

const lineage = lineageRegistry()

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
  const next = Object.freeze(base.concat(additions))
  lineage.delete(base)
  lineage.set(next, base)
  return next
}

/**
 * The frozen history `history` was built from by {@link extendHistory} (a prefix of it), or `undefined` when it was
 * not built that way or has since been extended itself (its record is dropped then; a consumer comparing against a
 * base it kept, or keyed by it in a weak map, falls back to comparing elements).
 */
export function historyBaseOf(history: readonly Message[]): readonly Message[] | undefined {
  return lineage.get(history)
}
