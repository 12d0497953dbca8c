/**
 * The bounds every streamed model call keeps (docs/model-calls.md#bounds), shared by the adapters so each ends a
 * runaway call the same way: the wait for progress (keep-alives and empty events do not count), the whole call's
 * duration, and the bytes of one response. Each bound ends the call with a typed `LlmError`; the caller records the
 * partial answer in an error turn, never in a completed one.
 */
import { LlmError } from './errors.js'

/** Default `streamTotalTimeoutMs`: 30 minutes from the start of the call to its last byte. */
export const DEFAULT_STREAM_TOTAL_TIMEOUT_MS = 30 * 60 * 1000

/**
 * Default `maxResponseBytes`: 128 MiB of streamed body per response. The largest output budgets today are about
 * 128,000 tokens, and an event stream spends at most about 300 bytes of framing and JSON per token (one event per
 * token), so an honest answer stays under 40 MB; a stream past this cap is not an answer.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 128 * 1024 * 1024

/** Which bound a `StreamTimeoutError` broke. */
export type StreamTimeoutBound = 'idle' | 'data' | 'total'

/** A time bound of a streamed call ran out (code `TIMEOUT`). `where` names the server (a base URL). */
export class StreamTimeoutError extends LlmError {
  constructor(
    readonly bound: StreamTimeoutBound,
    where: string,
    readonly ms: number,
  ) {
    super(timeoutMessage(bound, where, ms), 'TIMEOUT')
  }
}

function timeoutMessage(bound: StreamTimeoutBound, where: string, ms: number): string {
  if (bound === 'idle') return `event stream from ${where} idle for ${ms}ms`
  if (bound === 'data') {
    return `event stream from ${where} sent nothing new for ${ms}ms (keep-alives and empty events do not count)`
  }
  return `model call to ${where} did not finish within ${ms}ms (streamTotalTimeoutMs)`
}

/** One response streamed more than `maxResponseBytes` (code `RESPONSE_TOO_LARGE`, not retried by default). */
export class ResponseTooLargeError extends LlmError {
  constructor(
    where: string,
    readonly maxBytes: number,
  ) {
    super(
      `event stream from ${where} passed ${maxBytes} bytes without finishing (maxResponseBytes)`,
      'RESPONSE_TOO_LARGE',
    )
  }
}

/** Counts a response's bytes; `add` throws `ResponseTooLargeError` once the total passes the cap. */
export class ResponseMeter {
  private total = 0

  constructor(
    readonly maxBytes: number,
    private readonly where: string,
  ) {}

  /** Bytes counted so far. */
  get bytes(): number {
    return this.total
  }

  add(bytes: number): void {
    this.total += bytes
    if (this.total > this.maxBytes) throw new ResponseTooLargeError(this.where, this.maxBytes)
  }
}

/**
 * Starts the whole-call deadline: after `ms`, `abort` is called with a `StreamTimeoutError` (bound `total`). The
 * returned function clears it; call it when the call ends, however it ends.
 */
export function startTotalDeadline(ms: number, where: string, abort: (reason: LlmError) => void): () => void {
  const timer = setTimeout(() => abort(new StreamTimeoutError('total', where, ms)), ms)
  return () => clearTimeout(timer)
}

/** A running wait: rejects `expired` when it runs out; `stop()` ends it (and charges the time it ran). */
export interface BudgetWait {
  readonly expired: Promise<never>
  stop(): void
}

/**
 * The wait for progress of a streamed answer (`streamDataTimeoutMs`). The budget runs only while the reader waits for
 * the server — the consumer's time between pulls is not the server's — and is restored only by `progress()`, which
 * the adapter calls when an event carried something (a token, a finish reason, usage). Keep-alive comments and empty
 * deltas therefore spend it, however often they come.
 */
export class ProgressBudget {
  private remaining: number

  constructor(
    readonly ms: number,
    private readonly where: string,
    private readonly now: () => number = Date.now,
  ) {
    this.remaining = ms
  }

  /** The answer moved: the whole budget is available again. */
  progress(): void {
    this.remaining = this.ms
  }

  /** Starts waiting; the wait rejects with a `StreamTimeoutError` (bound `data`) when the budget runs out. */
  wait(): BudgetWait {
    const started = this.now()
    let timer: NodeJS.Timeout | undefined
    let stopped = false
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StreamTimeoutError('data', this.where, this.ms)), Math.max(0, this.remaining))
    })
    expired.catch(() => {})
    return {
      expired,
      stop: () => {
        if (stopped) return
        stopped = true
        clearTimeout(timer)
        this.remaining -= this.now() - started
      },
    }
  }
}
