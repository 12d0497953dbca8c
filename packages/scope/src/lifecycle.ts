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
export function admittedHooks(
  ctx: Context,
  name: string,
  thisArg: object | null | undefined,
): ReturnType<Lifecycle['filterHooks']> {
  const lifecycle = lifecycleOf(ctx)
  return lifecycle.filterHooks(lifecycle._hooks[name] ?? [], thisArg ?? undefined)
}

type Internals = {
  readonly [key: symbol]: Record<string | symbol, unknown>
}

/**
 * The service `ctx.get(name)` returns, as the object itself rather than upstream's per-read proxy (`undefined` when
 * no such service is set). Upstream's `ctx.get` goes through two proxy layers and a shadow context (microseconds per
 * read), and every method called through the returned proxy forks another shadow context for each `this.x` it reads.
 * For hot paths that only call a service's methods: `this.ctx` inside them is then the service's own context, not the
 * caller's, so methods that register effects on the caller (`ctx.tools.register`, …) must still go through `ctx`.
 */
export function rawService<T = unknown>(ctx: Context, name: string): T | undefined {
  const internals = ctx as unknown as Internals
  const declared = internals[symbols.internal]![name] as { type?: unknown } | undefined
  if (declared?.type !== 'service') return undefined
  const key = internals[symbols.isolate]![name] as symbol
  return (internals[symbols.store]![key] as { value?: T } | undefined)?.value
}

/**
 * Registers `callback` for `name` like `ctx.on(name, callback, { prepend })` — same hook record, same order, same
 * scope filtering, removed when `ctx`'s plugin unloads — but calls it directly. Upstream wraps every listener in a
 * proxy that, on each call, traces `this` and every argument through a shadow context (several microseconds per call).
 * That tracing only matters for arguments that are services; use this for listeners of events that carry plain data
 * (`session/event`, the checkpoints' waterfalls).
 */
export function onUntraced(
  ctx: Context,
  name: string,
  callback: (...args: never[]) => unknown,
  options: { readonly prepend?: boolean } = {},
): () => void {
  const lifecycle = lifecycleOf(ctx) as unknown as { _hooks: Record<string, { ctx: Context; callback: unknown }[]> }
  return ctx.effect(() => {
    const hooks = (lifecycle._hooks[name] ||= [])
    const hook = { ctx, callback }
    if (options.prepend === true) hooks.unshift(hook)
    else hooks.push(hook)
    return () => {
      const index = hooks.indexOf(hook)
      if (index >= 0) hooks.splice(index, 1)
    }
  })
}
