import { symbols, type Context } from 'cordis'

type Lifecycle = Context['lifecycle']

/** Raw lifecycles by app root (`ctx.root` is a plain own property: reading it builds no `Error`). */
const lifecycles = new WeakMap<object, Lifecycle>()

/**
 * The app's upstream `Lifecycle` (the object behind `ctx.lifecycle`), unwrapped from its tracing proxy and
 * cached per app root. Returns the same object `ctx.lifecycle` dispatches to; `filterHooks`, `emit`,
 * `_hooks` behave exactly as through the proxy (the proxy only rebinds `this.ctx`, which neither reads).
 *
 * Exists for hot paths: upstream `ctx.lifecycle` builds an `Error` (stack capture) and a tracing proxy on every
 * read, and each method call through that proxy forks a shadow context — tens of microseconds per dispatch.
 */
export function lifecycleOf(ctx: Context): Lifecycle {
  const hit = lifecycles.get(ctx)
  if (hit !== undefined) return hit
  // Services dispatch from short-lived shadow contexts, so the cache is keyed by the app's root.
  const root = ((ctx as { root?: object }).root ?? ctx) as Context
  let lifecycle = lifecycles.get(root)
  if (lifecycle === undefined) {
    const traced = root.lifecycle
    lifecycle = ((traced as unknown as Record<symbol, unknown>)[symbols.original] as Lifecycle | undefined) ?? traced
    lifecycles.set(root, lifecycle)
  }
  return lifecycle
}

/**
 * The listeners of `name` admitted for `thisArg` (upstream `filterHooks`: `global`, `prepend` and
 * `Context.filter` as under `emit`), snapshotted now. `null`/`undefined` admits everyone.
 */
export function admittedHooks(ctx: Context, name: string, thisArg: object | null | undefined): ReturnType<Lifecycle['filterHooks']> {
  const lifecycle = lifecycleOf(ctx)
  return lifecycle.filterHooks(lifecycle._hooks[name] ?? [], thisArg ?? undefined)
}
