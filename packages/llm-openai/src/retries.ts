/**
 * The request phase's retries, run by the adapter instead of the SDK: the SDK (6.49.0) sleeps whatever
 * `Retry-After` says — an hour for `Retry-After: 3600` — on a timer that ignores the abort signal, so a
 * cancelled call kept the process alive. Here the conditions and the backoff are the SDK's, the wait is
 * capped by `maxRetryDelayMs`, and the sleep ends (and clears its timer) when the call is cancelled or
 * its route disposed. Retries happen only before the first chunk.
 */
import { APIConnectionError, APIError, APIUserAbortError } from 'openai'
import { abortableSleep } from './abort.js'
import { requestedWaitMs } from './http-errors.js'

/** Time sources of the retry loop; tests pass their own to observe the waits without sleeping. */
export interface RetryClock {
  sleep(ms: number, signal: AbortSignal): Promise<void>
  random(): number
  now(): number
}

export const realClock: RetryClock = { sleep: abortableSleep, random: Math.random, now: Date.now }

export interface RetryLimits {
  maxRetries: number
  maxRetryDelayMs: number
}

const INITIAL_BACKOFF_MS = 500
const MAX_BACKOFF_MS = 8000

/**
 * Runs `attempt(retryCount)` until it resolves; rethrows the last error when it is not retryable, the
 * retries are used up, the signal aborted, or the server asks for a longer wait than the cap.
 */
export async function withRetries<T>(
  attempt: (retryCount: number) => Promise<T>,
  limits: RetryLimits,
  signal: AbortSignal,
  clock: RetryClock = realClock,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt(retry)
    } catch (error) {
      if (retry >= limits.maxRetries || signal.aborted) throw error
      const delay = retryDelayMs(error, retry, limits, clock)
      if (delay === undefined) throw error
      await clock.sleep(delay, signal)
    }
  }
}

/**
 * The wait before retry number `retry + 1`, or undefined when the failure must not be retried: the
 * server's own `retry-after-ms`/`Retry-After` when it is within `maxRetryDelayMs` (beyond it, no
 * retry: the failure reports the requested wait instead), else exponential backoff from 0.5 s
 * doubling to 8 s with up to 25 % jitter, capped at `maxRetryDelayMs`.
 */
function retryDelayMs(
  error: unknown,
  retry: number,
  limits: RetryLimits,
  clock: RetryClock = realClock,
): number | undefined {
  if (!isRetryable(error)) return undefined
  const headers = error instanceof APIError ? (error.headers as Headers | undefined) : undefined
  const requested = headers === undefined ? undefined : requestedWaitMs(headers, clock.now())
  if (requested !== undefined) return requested > limits.maxRetryDelayMs ? undefined : requested
  const backoff = Math.min(INITIAL_BACKOFF_MS * 2 ** retry, MAX_BACKOFF_MS) * (1 - clock.random() * 0.25)
  return Math.min(backoff, limits.maxRetryDelayMs)
}

/** The SDK's conditions: connection errors and timeouts, 408, 409, 429, 5xx; `x-should-retry` wins. */
function isRetryable(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false
  if (error instanceof APIConnectionError) return true
  if (!(error instanceof APIError) || typeof error.status !== 'number') return false
  const should = (error.headers as Headers | undefined)?.get('x-should-retry')
  if (should === 'true') return true
  if (should === 'false') return false
  return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500
}
