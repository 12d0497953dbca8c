import type { Context } from 'cordis'
import type { ScopeKey } from './key.js'
import type { NamedEntries } from './named-entries.js'
import { scopeChainOf } from './parent.js'
import { scopeOf } from './tag.js'

/** What a registry layer must offer so empty scoped layers can be reclaimed. */
export interface ScopeLayer {
  isEmpty(): boolean
}

export interface EffectOptions {
  /** Call `onChange` after registering and after undoing (default `true`). */
  notify?: boolean
}

/**
 * One eager global layer plus lazily created per-scope layers, with read views along a scope's parent chain
 * and one registration primitive, {@link ScopedLayers.effect}. Reads never create layers.
 */
export class ScopedLayers<L extends ScopeLayer> {
  /** The global layer (key `undefined`); built once by the constructor and never deleted. */
  readonly global: L
  readonly #layers = new Map<ScopeKey, L>()
  readonly #createLayer: (scope: ScopeKey | undefined) => L
  readonly #onChange: () => void

  constructor(createLayer: (scope: ScopeKey | undefined) => L, onChange: () => void) {
    this.#createLayer = createLayer
    this.#onChange = onChange
    this.global = createLayer(undefined)
  }

  /** The layer for exactly `scope`, ignoring the chain; `undefined` for `undefined` or a layerless key. */
  peek(scope: ScopeKey | undefined): L | undefined {
    return scope === undefined ? undefined : this.#layers.get(scope)
  }

  /** Existing layers along `scopeChainOf(scope)`, farthest ancestor first, exact scope last; global excluded. */
  chainLayers(scope: ScopeKey | undefined): L[] {
    const layers: L[] = []
    for (const key of scopeChainOf(scope)) {
      const layer = this.#layers.get(key)
      if (layer) layers.push(layer)
    }
    return layers.reverse()
  }

  /**
   * A snapshot `Map` of the named entries `scope` sees: the global table in insertion order, then each chain
   * layer (farthest first) `set` over it. A shadow keeps the slot of the entry it replaces; scope-only
   * entries come after all global ones.
   */
  merge<V>(scope: ScopeKey | undefined, pick: (layer: L) => NamedEntries<V>): Map<string, V> {
    const merged = new Map<string, V>(pick(this.global).entries())
    for (const layer of this.chainLayers(scope)) {
      for (const [name, value] of pick(layer).entries()) merged.set(name, value)
    }
    return merged
  }

  /**
   * Register through `ctx`: run `action` on the layer of `scopeOf(ctx)` (creating it if needed) inside
   * `ctx.effect`, then notify. Returns exactly the disposer `ctx.effect` returned; it undoes, reclaims an
   * emptied scoped layer and notifies again.
   *
   * Failure paths: a disposed fiber throws `INACTIVE_EFFECT` and nothing runs; a throwing `action` leaves
   * no new layer behind; a throwing `onChange` rolls the registration back (undo, reclaim, notify) and
   * rethrows the original error, reporting a failure of the rollback notification as `internal/error`.
   */
  effect(ctx: Context, action: (layer: L) => () => void, options: EffectOptions = {}): () => void {
    const notify = options.notify ?? true
    let ran = false
    const dispose = ctx.effect(() => {
      ran = true
      // Read the tag from the caller's ctx: the one upstream hands to this callback lacks `extend()` tags.
      const key = scopeOf(ctx)
      const { layer, created } = this.#layerFor(key)
      let undo: () => void
      try {
        undo = action(layer)
      } catch (error) {
        if (created) this.#reclaim(key, layer)
        throw error
      }
      return () => {
        undo()
        this.#reclaim(key, layer)
        if (notify) this.#onChange()
      }
    })
    if (ran && notify) {
      try {
        this.#onChange()
      } catch (error) {
        try {
          dispose()
        } catch (secondary) {
          ctx.emit(ctx, 'internal/error', secondary)
        }
        throw error
      }
    }
    return dispose
  }

  #layerFor(key: ScopeKey | undefined): { layer: L; created: boolean } {
    if (key === undefined) return { layer: this.global, created: false }
    const existing = this.#layers.get(key)
    if (existing) return { layer: existing, created: false }
    const layer = this.#createLayer(key)
    this.#layers.set(key, layer)
    return { layer, created: true }
  }

  /** Delete the scoped layer for `key` if it is still `layer` and now empty. The global layer stays. */
  #reclaim(key: ScopeKey | undefined, layer: L): void {
    if (key === undefined) return
    if (this.#layers.get(key) === layer && layer.isEmpty()) this.#layers.delete(key)
  }
}
