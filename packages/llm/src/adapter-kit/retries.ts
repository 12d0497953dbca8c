/**
 * The request phase's retries, run by the adapter instead of the SDK: the SDKs sleep whatever `Retry-After` says — an
 * hour for `Retry-After: 3600` — on a timer that ignores the abort signal, so a cancelled call kept the process alive.
 * Here the conditions and the backoff are the SDKs' (connection failures and timeouts, 408, 409, 429, 5xx — 529
 * `overloaded_error` included — and `x-should-retry` when the server says), the wait is capped by `maxRetryDelayMs`,
 * and the sleep ends (and clears its timer) when the call is cancelled or its route disposed. Retries happen only
 * before the first chunk.
 */
import { abortableSleep } from './call-abort.js'
import { requestedWaitMs } from './retry-after.js'
import { sdkHttpError, type SdkErrorClasses } from './sdk.js'

/** Time sources of the retry loop; tests pass their own to observe the waits without sleeping. */
export interface RetryClock {
  sleep(ms: number, signal: AbortSignal): Promise<void>
  random(): number
  now(): number
}

export const realClock: RetryClock = { sleep: abortableSleep, random: Math.random, now: Date.now }

export interface RetryLimits {
  readonly maxRetries: number
  readonly maxRetryDelayMs: number
}

/** How one call retries: its limits, its signal, the clock and the SDK whose errors it reads. */
export interface RetryContext {
  readonly limits: RetryLimits
  readonly signal: AbortSignal
  readonly sdk: SdkErrorClasses
  readonly clock?: RetryClock
}

const INITIAL_BACKOFF_MS = 500
const MAX_BACKOFF_MS = 8000

/**
 * Runs `attempt(retryCount)` until it resolves; rethrows the last error when it is not retryable, the retries are
 * used up, the signal aborted, or the server asks for a longer wait than the cap.
 */
export async function withRetries<T>(attempt: (retryCount: number) => Promise<T>, context: RetryContext): Promise<T> {
  const { limits, signal } = context
  const clock = context.clock ?? realClock
  for (let retry = 0; ; retry++) {
    try {
      return await attempt(retry)
    } catch (error) {
      if (retry >= limits.maxRetries || signal.aborted) throw error
      const delay = retryDelayMs(error, retry, context.sdk, limits, clock)
      if (delay === undefined) throw error
      await clock.sleep(delay, signal)
    }
  }
}

/**
 * The wait before retry number `retry + 1`, or undefined when the failure must not be retried: the server's own
 * `retry-after-ms`/`Retry-After` when it is within `maxRetryDelayMs` (beyond it, no retry: the failure reports the
 * requested wait instead), else exponential backoff from 0.5 s doubling to 8 s with up to 25 % jitter, capped at
 * `maxRetryDelayMs`.
 */
function retryDelayMs(
  error: unknown,
  retry: number,
  sdk: SdkErrorClasses,
  limits: RetryLimits,
  clock: RetryClock,
): number | undefined {
  if (!isRetryable(error, sdk)) return undefined
  const headers = sdkHttpError(error, sdk)?.headers
  const requested = headers === undefined ? undefined : requestedWaitMs(headers, clock.now())
  if (requested !== undefined) return requested > limits.maxRetryDelayMs ? undefined : requested
  const backoff = Math.min(INITIAL_BACKOFF_MS * 2 ** retry, MAX_BACKOFF_MS) * (1 - clock.random() * 0.25)
  return Math.min(backoff, limits.maxRetryDelayMs)
}

/** The SDKs' conditions: connection errors and timeouts, 408, 409, 429, 5xx; `x-should-retry` wins. */
function isRetryable(error: unknown, sdk: SdkErrorClasses): boolean {
  if (error instanceof sdk.APIUserAbortError) return false
  if (error instanceof sdk.APIConnectionError) return true
  const answer = sdkHttpError(error, sdk)
  if (answer === undefined) return false
  const should = answer.headers?.get('x-should-retry')
  if (should === 'true') return true
  if (should === 'false') return false
  return answer.status === 408 || answer.status === 409 || answer.status === 429 || answer.status >= 500
}
