import type { Context } from 'cordis'
import type { ScopeKey } from './key.js'

/**
 * Module-private symbol under which a context carries its scope key. Not the property name `scope`:
 * upstream cordis reserves that for the `EffectScope`.
 */
const TAG: unique symbol = Symbol('@bridle/scope.tag')

/** Derive a context from `ctx` that carries `key`. Children (`extend`, child plugins) inherit it. */
export function tagContext<C extends Context>(ctx: C, key: ScopeKey): C {
  return ctx.extend({ [TAG]: key })
}

/**
 * The nearest scope tag in `ctx`'s prototype chain, or `undefined` for an untagged context.
 * Inside a service method reached through `ctx.someService`, `this.ctx` is the caller's context, so this
 * tells a registry which layer a registration belongs to.
 */
export function scopeOf(ctx: Context): ScopeKey | undefined {
  if (ctx === null || ctx === undefined) return undefined
  return (ctx as unknown as { [TAG]?: ScopeKey })[TAG]
}
