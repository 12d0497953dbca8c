/**
 * Contained dispatch: the one place that runs a notification's listeners so that no listener's failure reaches the
 * caller or the listeners after it. Every package that emits an observe-only event (`session/event`, `agent/status`,
 * `tools/result`, …) goes through here, so the rule — run the admitted listeners in order, contain each synchronous
 * throw and each rejected promise, warn about it — is written once, with one warning sink ({@link warnContained}).
 */
import type { Context, Events } from 'cordis'
import { admittedHooks, lifecycleOf } from './lifecycle.js'

/** The parameters of event `K`'s listeners. */
export type EventArgs<K extends keyof Events> = Events[K] extends (...args: infer P) => unknown ? P : never

/** One admitted listener, as {@link admittedListeners} snapshots it. */
export interface Listener {
  readonly callback: (...args: never[]) => unknown
}

/** How a contained listener failed: it threw synchronously, or the promise it returned rejected. */
export type ListenerFailure = 'threw' | 'rejected'

/** Told about each contained failure, once per failing listener. It must not throw. */
export type FailureReport = (how: ListenerFailure, error: unknown) => void

/** Options of {@link dispatchContained} and {@link emitContained}. */
export interface ContainOptions {
  /** A synchronous throw propagates instead (the listeners after it do not run); rejections are still reported. */
  readonly veto?: boolean
}

/**
 * The listeners of `name` admitted for `thisArg` (a {@link scopeTarget} carrier, a context, or `null`/`undefined`
 * for all), snapshotted now. With `traced`, also emits upstream's `internal/event` (`'emit'`, `name`, `traced`,
 * `thisArg`) the way `ctx.emit` does, for devtools that tap every notification.
 */
export function admittedListeners<K extends keyof Events>(
  ctx: Context,
  name: K,
  thisArg: object | null | undefined,
  traced?: EventArgs<K>,
): readonly Listener[] {
  const hooks = admittedHooks(ctx, name as string, thisArg)
  if (traced !== undefined) lifecycleOf(ctx).emit('internal/event', 'emit', name, traced, thisArg)
  return hooks
}

/** Calls one listener the way upstream does: `this` is the dispatch's `thisArg`. */
const call = (listener: Listener, thisArg: object | null | undefined, args: readonly unknown[]): unknown =>
  (listener.callback as (...a: readonly unknown[]) => unknown).apply(thisArg, args as unknown[])

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function'

/**
 * Calls each of `listeners` with `this === thisArg` and `args`, in order. A synchronous throw is reported as
 * `'threw'` and the next listener still runs (unless `veto`: then it propagates); a returned promise that rejects is
 * reported as `'rejected'`. Never awaits a listener.
 */
export function dispatchContained<A extends readonly unknown[]>(
  listeners: readonly Listener[],
  thisArg: object | null | undefined,
  args: A,
  report: FailureReport,
  options?: ContainOptions,
): void {
  for (const listener of listeners) {
    let returned: unknown
    try {
      returned = call(listener, thisArg, args)
    } catch (error) {
      if (options?.veto) throw error
      report('threw', error)
      continue
    }
    if (isThenable(returned)) returned.then(undefined, (error: unknown) => report('rejected', error))
  }
}

/** {@link admittedListeners} then {@link dispatchContained}: a contained `ctx.emit(thisArg, name, ...args)`. */
export function emitContained<K extends keyof Events>(
  ctx: Context,
  thisArg: object | null | undefined,
  name: K,
  args: EventArgs<K>,
  report: FailureReport,
  options?: ContainOptions,
): void {
  dispatchContained(admittedHooks(ctx, name as string, thisArg), thisArg, args, report, options)
}

/**
 * Calls every listener at once (a synchronous throw becomes a rejection) and waits for all of them to settle. Rejects
 * with the first failure in listener order; otherwise resolves `true` when at least one listener ran. For barriers
 * such as `session/flush`, where the caller must learn of a failure rather than have it contained.
 */
export async function settleAll<A extends readonly unknown[]>(
  listeners: readonly Listener[],
  thisArg: object | null | undefined,
  args: A,
): Promise<boolean> {
  const runs = listeners.map((listener) => {
    try {
      return Promise.resolve(call(listener, thisArg, args))
    } catch (error) {
      return Promise.reject(error)
    }
  })
  const settled = await Promise.allSettled(runs)
  const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected')
  if (failure) throw failure.reason
  return listeners.length > 0
}

/**
 * Upstream `serial` on the raw lifecycle (no tracing proxy): awaits each admitted listener of `name` in turn; the
 * first throw or rejection propagates.
 */
export async function serialDispatch<K extends keyof Events>(
  ctx: Context,
  thisArg: object | null | undefined,
  name: K,
  ...args: EventArgs<K>
): Promise<void> {
  await lifecycleOf(ctx).serial(thisArg, name, ...args)
}

/**
 * The warning sink for contained failures. With a `logger` name, writes `message` to `ctx.logger(logger)` (a `%` in
 * it is printed as is, never read as a format directive); with `null`, emits upstream's own `internal/warning`
 * channel (`ctx.emit(ctx, 'internal/warning', message, ...details)`, logged as `app` by cordis). Never throws: a
 * failing logger must not turn a contained failure into an uncontained one.
 */
export function warnContained(ctx: Context, logger: string | null, message: string, ...details: unknown[]): void {
  try {
    if (logger === null) ctx.emit(ctx, 'internal/warning', message, ...details)
    else ctx.logger(logger).warn(message.replace(/%/g, '%%'), ...details)
  } catch {
    // the sink itself failed: nothing left to tell
  }
}
