import type { Context, Events } from 'cordis'
import { type EventArgs, emitContained, warnContained } from '@bridle/scope'

/**
 * Dispatches an observe-only event (`L:` in the pipeline diagram of the README) so that one listener's failure never
 * affects the others or the caller: each admitted listener runs in order, and a synchronous throw or a rejected
 * promise is reported on cordis's `internal/warning` channel as `<name> listener failed:` with the error.
 */
export function observe<K extends keyof Events>(ctx: Context, thisArg: object, name: K, args: EventArgs<K>): void {
  emitContained(ctx, thisArg, name, args, (_how, error) =>
    warnContained(ctx, null, `${String(name)} listener failed:`, error),
  )
}
