/** One insertion; compared by identity so an old undo never removes a later insertion of the same name. */
interface Slot<V> {
  readonly value: V
}

function* valuesOf<V>(slots: IterableIterator<Slot<V>>): IterableIterator<V> {
  for (const slot of slots) yield slot.value
}

function* entriesOf<V>(pairs: IterableIterator<[string, Slot<V>]>): IterableIterator<[string, V]> {
  for (const [name, slot] of pairs) yield [name, slot.value]
}

/**
 * A table of uniquely named entries, the building block of a registry layer.
 *
 * Iterators are live (native `Map` semantics) until the table drains: when an undo leaves it empty, the
 * backing map is replaced, so iterators opened before the drain finish and never see later inserts. This is
 * what keeps a provider that replaces itself mid-iteration from being evaluated twice in one pass.
 */
export class NamedEntries<V> {
  #map = new Map<string, Slot<V>>()
  readonly #duplicateError: (name: string) => Error

  /** `duplicateError(name)` builds the error thrown, as-is, when `name` is inserted twice. */
  constructor(duplicateError: (name: string) => Error) {
    this.#duplicateError = duplicateError
  }

  /**
   * Store `value` under `name` and return an idempotent undo. Throws exactly `duplicateError(name)` when the
   * name is present. The undo removes the entry only while it is still this insertion.
   */
  insert(name: string, value: V): () => void {
    if (this.#map.has(name)) throw this.#duplicateError(name)
    const slot: Slot<V> = { value }
    this.#map.set(name, slot)
    return () => {
      if (this.#map.get(name) !== slot) return
      this.#map.delete(name)
      if (this.#map.size === 0) this.#map = new Map()
    }
  }

  get(name: string): V | undefined {
    return this.#map.get(name)?.value
  }

  has(name: string): boolean {
    return this.#map.has(name)
  }

  keys(): IterableIterator<string> {
    return this.#map.keys()
  }

  values(): IterableIterator<V> {
    return valuesOf(this.#map.values())
  }

  entries(): IterableIterator<[string, V]> {
    return entriesOf(this.#map.entries())
  }

  isEmpty(): boolean {
    return this.#map.size === 0
  }
}
