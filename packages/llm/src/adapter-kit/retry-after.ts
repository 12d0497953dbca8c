/** How long a server asked the client to wait before it tries again (`retry-after-ms`, `Retry-After`). */

/**
 * How long the server asked the client to wait before retrying, in milliseconds (>= 0): a positive
 * `retry-after-ms`, else `Retry-After` in seconds or as an HTTP-date (a past date is 0), else a
 * `retry-after-ms` of 0. Undefined when neither header says anything usable.
 */
export function requestedWaitMs(headers: Headers, now: number = Date.now()): number | undefined {
  const msText = headers.get('retry-after-ms')?.trim()
  const ms = msText === undefined || msText === '' ? Number.NaN : Number(msText)
  if (Number.isFinite(ms) && ms > 0) return ms
  const after = headers.get('retry-after')?.trim()
  if (after !== undefined && after !== '') {
    if (/^\d+(\.\d+)?$/.test(after)) {
      const seconds = Number(after) * 1000
      if (Number.isFinite(seconds)) return seconds
    } else if (/[a-z]/i.test(after)) {
      // an HTTP-date names its weekday or month; `-5` is neither seconds nor a date, and says nothing usable
      const date = Date.parse(after)
      if (!Number.isNaN(date)) return Math.max(0, date - now)
    }
  }
  return ms === 0 ? 0 : undefined
}

/**
 * `requestedWaitMs` as a failure fact (`providerRetryAfterMs`): undefined unless finite and > 0.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const wait = requestedWaitMs(headers, now)
  return wait !== undefined && wait > 0 ? wait : undefined
}
