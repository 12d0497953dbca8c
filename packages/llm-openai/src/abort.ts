/**
 * Abort plumbing shared by every wait of a call (the request phase, the retry sleep, each body read):
 * a wait ends as soon as its signal aborts, with the abort's own `LlmError` reason when it has one
 * (a disposed route, the total deadline) and `request aborted` otherwise.
 */
import { LlmError } from '@bridle/llm'

/**
 * The error a wait ends with when `signal` aborts: the abort's own `LlmError` (a disposed route, the call's total
 * deadline), else `request aborted`.
 */
export function abortError(signal: AbortSignal | undefined): LlmError {
  const reason: unknown = signal?.reason
  return reason instanceof LlmError ? reason : new LlmError('request aborted', 'ABORTED')
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts. The abandoned promise gets a no-op
 * `catch`, and the abort listener is removed once either side settles.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  work.catch(() => {})
  if (signal === undefined) return work
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal))
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Waits `ms`, or rejects at once when `signal` aborts; either way no timer is left behind. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal))
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortError(signal))
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
