/**
 * Failure classification (README.md#failures): a non-2xx answer or an `error` event inside the stream becomes an
 * `LlmError` with a code from `@bridle/llm`'s table and the facts a retry policy needs (status, the provider's
 * retry-after, the request id). The catch ladder around it, and the redaction of every message before it leaves the
 * adapter (redacted first, cut to `MAX_MESSAGE_CHARS` after), are `@bridle/llm/adapter-kit`'s.
 */
import { LlmError, isContextWindowExceededError, isQuotaExceededError, isRecord } from '@bridle/llm'
import { inStreamFailureCode, retryAfterMs } from '@bridle/llm/adapter-kit'

/** The longest message an error of this adapter carries (cut after redaction). */
export const MAX_MESSAGE_CHARS = 500

/** The HTTP status each documented error `type` comes with; an in-stream `error` event is classified by it. */
const STATUS_OF_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
}

/** What an error body says: `{"type":"error","error":{"type","message"},"request_id"}` or plain text. */
export interface ErrorDetails {
  type?: string
  message?: string
  requestId?: string
}

/** Reads an Anthropic error body (parsed JSON, or the text of a body that was not JSON). */
export function errorDetails(body: unknown): ErrorDetails {
  if (typeof body === 'string') return body.trim() === '' ? {} : { message: oneLine(body) }
  if (!isRecord(body)) return {}
  const inner = isRecord(body.error) ? body.error : body
  const out: ErrorDetails = {}
  if (typeof inner.type === 'string' && inner.type !== '' && inner.type !== 'error') out.type = inner.type
  if (typeof inner.message === 'string' && inner.message.trim() !== '') out.message = inner.message
  if (typeof body.request_id === 'string' && body.request_id !== '') out.requestId = body.request_id
  return out
}

/** Status and details → code, first matching row wins (the README's Failures table). */
export function errorCode(status: number, details: ErrorDetails): string {
  const text = [details.type, details.message].filter((t) => t !== undefined).join(' ')
  if (status === 401 || status === 403) return 'AUTH'
  if (status === 402 || details.type === 'billing_error' || isQuotaExceededError(text) || /credit balance/i.test(text))
    return 'QUOTA'
  if (status === 429) return 'RATE_LIMIT'
  if ((status === 400 || status === 413) && isContextError(details.message)) return 'CONTEXT_WINDOW_EXCEEDED'
  if (status === 400 || status === 413 || status === 422) return 'INVALID_REQUEST'
  if (status === 408) return 'TIMEOUT'
  if (status >= 500) return 'SERVER'
  return `HTTP_${status}`
}

function isContextError(message: string | undefined): boolean {
  return message !== undefined && (/prompt is too long/i.test(message) || isContextWindowExceededError(message))
}

/** The error for a non-2xx answer. The message names the provider, the status and the error type. */
export function httpError(
  status: number,
  headers: Headers | undefined,
  body: unknown,
  displayName: string,
  now = Date.now(),
): LlmError {
  const details = errorDetails(body)
  const retryAfter = headers === undefined ? undefined : retryAfterMs(headers, now)
  const requestId = headers?.get('request-id') || details.requestId
  return new LlmError(describe(displayName, `HTTP ${status}`, details), errorCode(status, details), {
    status,
    ...(retryAfter === undefined ? {} : { providerRetryAfterMs: retryAfter }),
    ...(requestId ? { requestId } : {}),
  })
}

/**
 * An `error` event inside a 2xx stream: classified by its type's status (`overloaded_error` → 529 → `SERVER`), and
 * never retried when that status is a 4xx (`rate_limit_error` there is `HTTP_429`, not `RATE_LIMIT`).
 */
export function streamErrorEvent(payload: unknown, displayName: string): LlmError {
  const details = errorDetails(payload)
  const status = details.type === undefined ? undefined : STATUS_OF_TYPE[details.type]
  const code = status === undefined ? 'SERVER' : inStreamFailureCode(status, errorCode(status, details))
  return new LlmError(describe(displayName, 'error event in the stream', details), code, {
    ...(status === undefined ? {} : { status }),
    ...(details.requestId === undefined ? {} : { requestId: details.requestId }),
  })
}

function describe(displayName: string, where: string, details: ErrorDetails): string {
  const kind = details.type === undefined ? '' : ` ${details.type}`
  return `${displayName} API error (${where}${kind})${details.message === undefined ? '' : `: ${details.message}`}`
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
