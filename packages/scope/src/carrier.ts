import { Context, Service, symbols } from 'cordis'
import type { ScopeKey } from './key.js'
import { chainIncludes } from './parent.js'
import { scopeOf } from './tag.js'

declare const brand: unique symbol

/** Opaque, type-level only: a dispatch `thisArg` that filters listeners by scope. */
export type Scoped<T> = { readonly [brand]: T }

/** Every carrier built by {@link scopeTarget}, with the key it dispatches for (possibly `undefined`). */
const carriers = new WeakMap<object, { key: ScopeKey | undefined }>()

type Filter = (this: unknown, ctx: Context) => unknown

/** Upstream `Service`'s own filter: a listener passes when it sees the same isolation label for the service's name. */
const serviceFilter = (Service.prototype as unknown as Record<symbol, Filter>)[Context.filter]

/** What the stock service filter reads from `this`, read once per carrier. */
interface ServiceIdentity {
  readonly name: string
  readonly ctx: Context
}

type Isolated = { readonly [key: symbol]: Record<string, unknown> }

/**
 * The stock service filter evaluated for `identity` instead of `this`. The base is usually a service as the caller
 * sees it, a cordis proxy: calling the filter with it as `this` made each of its two property reads fork a shadow
 * context, for every listener of every dispatch (the largest cordis cost of a session append).
 */
function passesServiceFilter(identity: ServiceIdentity, listenerCtx: Context): boolean {
  const isolate = symbols.isolate as symbol
  return (
    (listenerCtx as unknown as Isolated)[isolate]![identity.name] ===
    (identity.ctx as unknown as Isolated)[isolate]![identity.name]
  )
}

/**
 * Build a carrier to pass as cordis `thisArg` (`emit`, `serial`, `bail`, `parallel`, {@link waterfall}).
 * Its only own member is a `Context.filter` that admits a listener when `base`'s own filter (if any) admits
 * it and the listener is untagged, or tagged with `key` or an ancestor of `key` (chain read live).
 * With `key === undefined` only untagged listeners pass. `{ global: true }` listeners bypass all filters.
 */
export function scopeTarget<T extends object>(base: T, key: ScopeKey | undefined): Scoped<T> {
  let identity: ServiceIdentity | undefined
  const carrier = {
    [Context.filter](listenerCtx: Context): boolean {
      const baseFilter = (base as { [Context.filter]?: unknown })[Context.filter]
      if (baseFilter === serviceFilter) {
        identity ??= { name: (base as unknown as ServiceIdentity).name, ctx: (base as unknown as ServiceIdentity).ctx }
        if (!passesServiceFilter(identity, listenerCtx)) return false
      } else if (typeof baseFilter === 'function' && !(baseFilter as Filter).call(base, listenerCtx)) return false
      const tag = scopeOf(listenerCtx)
      if (tag === undefined) return true
      if (key === undefined) return false
      return chainIncludes(key, tag)
    },
  }
  carriers.set(carrier, { key })
  return carrier as unknown as Scoped<T>
}

/** True only for objects produced by {@link scopeTarget}. */
export function isScopeCarrier(value: unknown): boolean {
  return typeof value === 'object' && value !== null && carriers.has(value)
}

/** The key a carrier dispatches for; `undefined` for non-carriers and for carriers built with `undefined`. */
export function carrierKeyOf(value: unknown): ScopeKey | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  return carriers.get(value)?.key
}
