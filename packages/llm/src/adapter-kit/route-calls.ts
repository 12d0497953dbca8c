/**
 * The calls in flight of one route. Each call gets an internal controller, joined with the caller's signal, that ends
 * it when the route is disposed or its total deadline (`streamTotalTimeoutMs`) passes; disposing the route ends every
 * call in flight with `ABORTED` naming the route, so a disposed route keeps no socket, sleep or watchdog alive.
 */
import { startTotalDeadline } from '../call-bounds.js'
import { LlmError } from '../errors.js'

/** One running call. */
export interface RouteCall {
  /** The signal every wait of the call races: the caller's and the internal one. */
  readonly signal: AbortSignal
  /** The internal signal alone: aborted with an `LlmError` reason by `dispose()` or the total deadline. */
  readonly internal: AbortSignal
  /** The caller's signal, if any. */
  readonly caller: AbortSignal | undefined
  /** Ends the call however it ended: clears its deadline and closes what is still open. Idempotent. */
  end(): void
}

export class RouteCalls {
  private readonly calls = new Set<AbortController>()
  private disposed: LlmError | undefined

  /** `provider` names the route in the message of a call ended by `dispose()`. */
  constructor(private readonly provider: string) {}

  /** Throws `ABORTED` when the caller's signal already fired (no request is made) or the route was disposed. */
  assertOpen(caller: AbortSignal | undefined): void {
    if (caller?.aborted === true) throw new LlmError('request aborted', 'ABORTED')
    if (this.disposed !== undefined) throw this.disposed
  }

  /** Starts a call whose whole duration is bounded by `totalTimeoutMs` (a `StreamTimeoutError`, bound `total`). */
  start(caller: AbortSignal | undefined, totalTimeoutMs: number, where: string): RouteCall {
    this.assertOpen(caller)
    const internal = new AbortController()
    this.calls.add(internal)
    const stopTotal = startTotalDeadline(totalTimeoutMs, where, (reason) => internal.abort(reason))
    return {
      signal: caller === undefined ? internal.signal : AbortSignal.any([caller, internal.signal]),
      internal: internal.signal,
      caller,
      end: () => {
        stopTotal()
        this.calls.delete(internal)
        internal.abort()
      },
    }
  }

  /** Ends every call in flight with `ABORTED` (the route was disposed); later calls fail the same way. */
  dispose(): void {
    this.disposed ??= new LlmError(`request aborted: the ${this.provider} route was disposed`, 'ABORTED')
    for (const call of this.calls) call.abort(this.disposed)
    this.calls.clear()
  }
}
