/**
 * A table of unnamed entries (listeners, hooks). Every `append` is an independent registration, even for
 * the same value. `values()` is live and follows the same drain-generation rule as `NamedEntries`.
 */
export class AnonymousEntries<V> {
  #map = new Map<symbol, V>()

  /** Store `value` under a fresh private key; the returned undo is idempotent and removes only this one. */
  append(value: V): () => void {
    const id = Symbol('entry')
    this.#map.set(id, value)
    return () => {
      if (!this.#map.delete(id)) return
      if (this.#map.size === 0) this.#map = new Map()
    }
  }

  values(): IterableIterator<V> {
    return this.#map.values()
  }

  isEmpty(): boolean {
    return this.#map.size === 0
  }
}
