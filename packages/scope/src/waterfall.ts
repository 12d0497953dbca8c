import type { Context, Events } from 'cordis'
import { admittedHooks } from './lifecycle.js'

/** The parameters of listener type `F` without its trailing `next`. */
export type WaterfallArgs<F> = F extends (...args: infer P) => unknown
  ? P extends [...infer A, unknown]
    ? A
    : P
  : never

/** The return type of listener type `F`. */
export type WaterfallResult<F> = F extends (...args: never[]) => infer R ? R : never

type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown }

/**
 * Dispatch `name` as a waterfall: each admitted listener is called `(…args, next)`, where `next()` runs the
 * inner rest of the chain and, past the last listener, `fallback(…args)`. Returns the outermost listener's
 * result (or the fallback's when nobody is admitted).
 *
 * - Listeners are snapshotted once at call time through `ctx.lifecycle.filterHooks`, so `prepend`, `global`
 *   and `Context.filter` (e.g. a {@link scopeTarget} carrier) behave as under `emit`. A `null`/`undefined`
 *   `thisArg` admits everyone. Listeners run with `this === thisArg`.
 * - `next` belongs to one position: the first call runs the inner chain, later calls replay that outcome.
 *   A listener that never calls `next` short-circuits the inner listeners and the fallback.
 * - Every listener and the fallback receive the same argument values; errors propagate unchanged.
 * - Throws `TypeError` when the last argument is not a function. Does not emit `internal/event`.
 *
 * Exists because upstream cordis 3.18 has no waterfall mode.
 */
export function waterfall<K extends keyof Events>(
  ctx: Context,
  thisArg: object | null | undefined,
  name: K,
  ...argsThenFallback: [
    ...WaterfallArgs<Events[K]>,
    fallback: (...args: WaterfallArgs<Events[K]>) => WaterfallResult<Events[K]>,
  ]
): WaterfallResult<Events[K]>
export function waterfall(
  ctx: Context,
  thisArg: object | null | undefined,
  name: keyof Events,
  ...argsThenFallback: unknown[]
): unknown {
  const fallback = argsThenFallback[argsThenFallback.length - 1]
  if (typeof fallback !== 'function') {
    throw new TypeError(`@bridle/scope: waterfall "${String(name)}" needs a fallback function as its last argument`)
  }
  return runWaterfall(ctx, thisArg, name, argsThenFallback.slice(0, -1), fallback as (...args: unknown[]) => unknown)
}

/**
 * {@link waterfall} with the arguments as one tuple, typed by them and by the fallback's result instead of by the
 * event's declaration. For wrappers that are generic over several waterfall events (a generic `Events[K]` does not
 * resolve inside them): the wrapper's own signature ties each name to its payload and result.
 */
export function runWaterfall<A extends unknown[], R>(
  ctx: Context,
  thisArg: object | null | undefined,
  name: keyof Events,
  args: A,
  fallback: (...args: NoInfer<A>) => R,
): R {
  const hooks = admittedHooks(ctx, name as string, thisArg)

  const invoke = (index: number): R => {
    const hook = hooks[index]
    if (!hook) return fallback(...args)
    let outcome: Outcome<R> | undefined
    const next = (): R => {
      if (!outcome) {
        try {
          outcome = { ok: true, value: invoke(index + 1) }
        } catch (error) {
          outcome = { ok: false, error }
        }
      }
      if (outcome.ok) return outcome.value
      throw outcome.error
    }
    return hook.callback.apply(thisArg, [...args, next])
  }
  return invoke(0)
}
