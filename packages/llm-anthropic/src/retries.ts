/**
 * The request phase's retries, run by the adapter instead of the SDK (whose sleep follows any `retry-after`, however
 * long, on a timer the abort signal does not end). The conditions are the SDK's — connection failures and timeouts,
 * 408, 409, 429, 5xx including 529 `overloaded_error`, and `x-should-retry` when the server says — the wait is the
 * server's `retry-after` when it is within `maxRetryDelayMs` (longer: no retry, the failure reports the wait), else
 * backoff from 0.5 s doubling to 8 s with up to 25 % jitter. Retries happen only before the first chunk.
 */
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk'
import { abortableSleep } from './deadlines.js'
import { requestedWaitMs } from './failures.js'

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

/** Runs `attempt(retry)` until it resolves or a failure may not be retried; rethrows the last failure. */
export async function withRetries<T>(
  attempt: (retry: number) => Promise<T>,
  limits: RetryLimits,
  signal: AbortSignal,
  clock: RetryClock = realClock,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt(retry)
    } catch (error) {
      const wait = retry < limits.maxRetries && !signal.aborted ? waitBefore(error, retry, limits, clock) : undefined
      if (wait === undefined) throw error
      await clock.sleep(wait, signal)
    }
  }
}

function waitBefore(error: unknown, retry: number, limits: RetryLimits, clock: RetryClock): number | undefined {
  if (error instanceof APIUserAbortError) return undefined
  if (!(error instanceof APIConnectionError)) {
    if (!(error instanceof APIError) || typeof error.status !== 'number') return undefined
    const headers = error.headers as Headers | undefined
    const should = headers?.get('x-should-retry')
    const retryable =
      should === 'true' ||
      (should !== 'false' && [408, 409, 429].includes(error.status)) ||
      (should !== 'false' && error.status >= 500)
    if (!retryable) return undefined
    const asked = headers === undefined ? undefined : requestedWaitMs(headers, clock.now())
    if (asked !== undefined) return asked > limits.maxRetryDelayMs ? undefined : asked
  }
  const backoff = Math.min(500 * 2 ** retry, 8000) * (1 - clock.random() * 0.25)
  return Math.min(backoff, limits.maxRetryDelayMs)
}
