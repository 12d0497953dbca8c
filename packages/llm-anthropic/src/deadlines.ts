/**
 * Timers and abort plumbing shared by every wait of a call (the request phase, the retry sleep, each body read):
 * a wait ends as soon as the call's signal aborts or one of its deadlines expires, and leaves no timer behind.
 */
import { LlmError } from '@bridle/llm'

/** A timer whose expiry rejects `expired`; `clear()` is idempotent. */
export interface Deadline {
  readonly expired: Promise<never>
  clear(): void
}

/** Starts a deadline that rejects with `onExpire()` after `ms`. */
export function startDeadline(ms: number, onExpire: () => Error): Deadline {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onExpire()), ms)
  })
  expired.catch(() => {})
  return { expired, clear: () => clearTimeout(timer) }
}

/** The error a wait ends with when `signal` aborts: the abort's own `ABORTED` reason (a disposed route), else generic. */
export function abortError(signal: AbortSignal | undefined): LlmError {
  const reason: unknown = signal?.reason
  return reason instanceof LlmError && reason.code === 'ABORTED' ? reason : new LlmError('request aborted', 'ABORTED')
}

/** Settles with `work`, or rejects when `signal` aborts or `deadline` expires; the loser gets a no-op `catch`. */
export function raceCall<T>(work: Promise<T>, signal: AbortSignal, deadline: Deadline): Promise<T> {
  work.catch(() => {})
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal))
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    deadline.expired.catch(reject)
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
