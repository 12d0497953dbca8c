import type { SessionEvent, SessionFollowOptions } from '@bridle/session'

/** Options of `follow`: `from` (default 0), `signal`, and `intervalMs` between empty polls (default 200). */
export type FollowOptions = SessionFollowOptions

/**
 * Yields committed events from `options.from` on, in seq order, as `fetch(from, limit)` finds them, waiting
 * `intervalMs` between empty polls, until the signal aborts. Errors of `fetch` end the iteration with that error.
 */
export async function* follow(
  fetch: (from: number, limit: number) => Promise<SessionEvent[]>,
  options: FollowOptions = {},
): AsyncGenerator<SessionEvent> {
  let next = options.from ?? 0
  const interval = options.intervalMs ?? 200
  const signal = options.signal
  for (;;) {
    if (signal?.aborted) return
    const events = await fetch(next, 1_000)
    for (const event of events) {
      if (signal?.aborted) return
      yield event
      next = event.seq + 1
    }
    if (events.length === 0 && !(await pause(interval, signal))) return
  }
}

/** Waits `ms`; resolves `false` early when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve(false)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
