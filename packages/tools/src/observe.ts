import type { Context } from 'cordis'
import { admittedHooks } from '@bridle/scope'

function warn(ctx: Context, name: string, error: unknown): void {
  try {
    ctx.emit(ctx, 'internal/warning', `${name} listener failed:`, error)
  } catch {
    // a throwing warning sink must not break the call either
  }
}

/**
 * Dispatches an observe-only event (`L:` in the pipeline diagram of the README) so that one listener's failure never affects the others or
 * the caller: each admitted listener runs in order, a synchronous throw or a rejected promise is reported as an
 * `internal/warning`, and the next listener still runs. Upstream `emit` would stop at the first throw and leave
 * rejections unhandled, which is why this reads the admitted hooks through the public `filterHooks`.
 */
export function emitContained(ctx: Context, thisArg: object, name: string, args: readonly unknown[]): void {
  const hooks = admittedHooks(ctx, name, thisArg)
  for (const hook of hooks) {
    try {
      const returned: unknown = hook.callback.apply(thisArg, args as unknown[])
      if (
        typeof returned === 'object' &&
        returned !== null &&
        typeof (returned as PromiseLike<unknown>).then === 'function'
      ) {
        Promise.resolve(returned).then(undefined, (e: unknown) => warn(ctx, name, e))
      }
    } catch (e) {
      warn(ctx, name, e)
    }
  }
}
