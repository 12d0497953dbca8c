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

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

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
  const args = argsThenFallback.slice(0, -1)
  const hooks = admittedHooks(ctx, name as string, thisArg)

  const invoke = (index: number): unknown => {
    const hook = hooks[index]
    if (!hook) return (fallback as (...a: unknown[]) => unknown)(...args)
    let outcome: Outcome | undefined
    const next = (): unknown => {
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
