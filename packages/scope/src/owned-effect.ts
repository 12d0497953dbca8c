import type { Context } from 'cordis'

/**
 * `ctx.effect(callback)` that still ties the effect to its owner when the owner goes away *while `callback` runs*.
 *
 * Upstream adds the disposer `callback` returns to the fiber only after `callback` returns. If the fiber is disposed
 * (or reset) from inside `callback` — for example by a listener the callback notifies, as when a hot reload races a
 * registration — its disposables are already gone by then, so the disposer would never run and the effect would
 * outlive its owner. Here a sentinel effect registered first notices that teardown, and the disposer runs as soon
 * as `callback` returns. Otherwise the result is exactly what `ctx.effect` returned.
 *
 * Throws what `ctx.effect` throws (`INACTIVE_EFFECT` on a disposed fiber, or `callback`'s own error), leaving
 * nothing behind.
 */
export function ownedEffect(ctx: Context, callback: () => () => void): () => void {
  let tornDown = false
  const sentinel = ctx.effect(() => () => {
    tornDown = true
  })
  let dispose: () => void
  try {
    dispose = ctx.effect(callback)
  } catch (error) {
    if (!tornDown) sentinel()
    throw error
  }
  if (tornDown) {
    dispose()
  } else {
    sentinel()
  }
  return dispose
}
