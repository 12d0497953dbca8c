/**
 * The calls in flight of one route. Each call gets an internal controller, joined with the caller's signal, that ends
 * it when the route is disposed or its total deadline (`streamTotalTimeoutMs`) passes; disposing the route ends every
 * call in flight with `ABORTED` naming the route, so a disposed route keeps no socket, sleep or watchdog alive.
 */
import { startTotalDeadline } from '../call-bounds.js'
import { LlmError } from '../errors.js'
import { ModelCall, type CallSetup } from './model-call.js'

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

  /**
   * Starts a call whose whole duration is bounded by `streamTotalTimeoutMs` (a `StreamTimeoutError`, bound `total`).
   * End it with `end()` however it ends.
   */
  start(caller: AbortSignal | undefined, setup: CallSetup): ModelCall {
    this.assertOpen(caller)
    const internal = new AbortController()
    this.calls.add(internal)
    const { streamTotalTimeoutMs, baseURL } = setup.config
    const stopTotal = startTotalDeadline(streamTotalTimeoutMs, baseURL, (reason) => internal.abort(reason))
    return new ModelCall(caller, internal.signal, setup, () => {
      stopTotal()
      this.calls.delete(internal)
      internal.abort()
    })
  }

  /** Ends every call in flight with `ABORTED` (the route was disposed); later calls fail the same way. */
  dispose(): void {
    this.disposed ??= new LlmError(`request aborted: the ${this.provider} route was disposed`, 'ABORTED')
    for (const call of this.calls) call.abort(this.disposed)
    this.calls.clear()
  }
}
