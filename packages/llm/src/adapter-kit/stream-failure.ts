/**
 * The code of an error that arrives inside a 2xx event stream and carries an HTTP status. The provider accepted the
 * request and then refused it mid-answer, so a second attempt repeats a call that already failed with a client error:
 * an in-stream 4xx never takes a code of the default retryable set. 429 and 408, which the HTTP table calls
 * `RATE_LIMIT` and `TIMEOUT`, become `HTTP_429` and `HTTP_408` (the status stays on the failure); a 5xx keeps its code.
 */
import { DEFAULT_RETRY_POLICY } from '../adapter.js'

export function inStreamFailureCode(status: number, httpCode: string): string {
  const clientError = status >= 400 && status < 500
  return clientError && DEFAULT_RETRY_POLICY.retryableCodes.includes(httpCode) ? `HTTP_${status}` : httpCode
}
