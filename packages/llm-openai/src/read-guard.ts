/**
 * The deadlines of a body read. Each is a timer that exists only while the reader waits, so a consumer
 * that holds a chunk for a long time is never blamed, and every timer is cleared on every way out:
 * data, end, error, abort.
 */
import { abortError } from './abort.js'

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

export type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>

export interface GuardedReadOptions {
  /** Longest this one read may stay pending. */
  idleTimeoutMs: number
  onIdle: () => Error
  /** A deadline that spans several reads (the wait for progress). */
  deadline?: { readonly expired: Promise<never> }
  signal?: AbortSignal
}

/** One `read()`, bounded by the idle timeout, an outer deadline and the signal. */
export async function guardedRead(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  options: GuardedReadOptions,
): Promise<ReadResult> {
  const read = reader.read()
  read.catch(() => {})
  const idle = startDeadline(options.idleTimeoutMs, options.onIdle)
  const signal = options.signal
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_, reject) => {
    if (signal === undefined) return
    onAbort = () => reject(abortError(signal))
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
  aborted.catch(() => {})
  try {
    return await Promise.race([
      read,
      idle.expired,
      aborted,
      ...(options.deadline === undefined ? [] : [options.deadline.expired]),
    ])
  } finally {
    idle.clear()
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
  }
}
