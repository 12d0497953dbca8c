/**
 * HTTP and in-stream error classification: a non-2xx answer or an error event
 * becomes an `LlmError` with a code from `@bridle/llm`'s vocabulary and the facts a retry policy
 * needs (status, provider retry-after, request id).
 */
import { LlmError, clipRedacted, isContextWindowExceededError, isQuotaExceededError } from '@bridle/llm'
import { asRecord } from './json-object.js'

const MAX_MESSAGE_CHARS = 500

/** What an error body says, whatever its shape (OpenAI, Ollama, legacy vLLM, OpenRouter, Groq, plain text). */
export interface ErrorDetails {
  message?: string
  code?: string
  type?: string
  /** An HTTP status the body itself carries (`status`, `status_code`, or a numeric `code`: OpenRouter). */
  status?: number
}

/** Reads message, code and type from an error body: JSON in any of the known shapes, else text. */
function errorDetails(text: string): ErrorDetails {
  const json = parseJson(text)
  if (json === undefined) {
    const trimmed = text.trim()
    return trimmed === '' ? {} : { message: cut(trimmed) }
  }
  return detailsOfObject(json)
}

/** Same as `errorDetails` for an already-parsed payload. */
export function detailsOfObject(json: unknown): ErrorDetails {
  const top = asRecord(json)
  if (top === undefined) return {}
  const nested = asRecord(top.error)
  const message = str(nested?.message) ?? str(top.error) ?? str(top.message) ?? str(top.detail)
  const code = str(nested?.code) ?? str(top.code)
  const type = str(nested?.type) ?? str(top.type)
  const status = [nested?.status, nested?.status_code, nested?.code, top.status_code, top.status].find(isStatus)
  return {
    ...(message === undefined ? {} : { message: cut(message) }),
    ...(code === undefined ? {} : { code }),
    ...(type === undefined ? {} : { type }),
    ...(status === undefined ? {} : { status }),
  }
}

function isStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599
}

/** True when code, type or message uses quota/balance wording. */
function isQuotaError(details: ErrorDetails): boolean {
  return [details.code, details.type, details.message].some((t) => t !== undefined && isQuotaExceededError(t))
}

/** True when code, type or message says the prompt did not fit the context window. */
function isContextError(details: ErrorDetails): boolean {
  return (
    details.code === 'context_length_exceeded' ||
    details.type === 'exceed_context_size_error' ||
    (details.message !== undefined && isContextWindowExceededError(details.message))
  )
}

/** Status → code, as the README's Failures table lists it: first matching row wins. */
export function httpErrorCode(status: number, details: ErrorDetails): string {
  if (status === 401 || status === 403) return 'AUTH'
  if (status === 402 || isQuotaError(details)) return 'QUOTA'
  if (status === 429) return 'RATE_LIMIT'
  if ((status === 400 || status === 413 || status === 422) && isContextError(details)) return 'CONTEXT_WINDOW_EXCEEDED'
  if (status === 400 || status === 422) return 'INVALID_REQUEST'
  if (status === 408) return 'TIMEOUT'
  if (status >= 500) return 'SERVER'
  return `HTTP_${status}`
}

/**
 * Builds the error for a non-2xx answer from its status, headers and body text. The message is
 * the provider's own (cut to 500 characters) or `<displayName> API error (HTTP <status>)`.
 */
export function httpError(
  status: number,
  headers: Headers | undefined,
  text: string,
  displayName: string,
  now: number = Date.now(),
): LlmError {
  const details = errorDetails(text)
  const message = details.message ?? `${displayName} API error (HTTP ${status})`
  const retryAfter = headers === undefined ? undefined : retryAfterMs(headers, now)
  const requestId = headers?.get('x-request-id') ?? undefined
  return new LlmError(message, httpErrorCode(status, details), {
    status,
    ...(retryAfter === undefined ? {} : { providerRetryAfterMs: retryAfter }),
    ...(requestId === undefined || requestId === '' ? {} : { requestId }),
  })
}

/**
 * An error inside a 2xx stream (an error event, an error payload, or an `error` object beside `choices`). A status
 * the error carries classifies it by the HTTP table, so a 4xx (Groq's `tool_use_failed` 400) is never `SERVER` and
 * so never retried — but for 408 and 429, which a later attempt can pass. Without a status, an
 * `invalid_request_error` type is `INVALID_REQUEST`; quota and context wording keep their codes; else `SERVER`.
 */
export function streamErrorEvent(details: ErrorDetails, displayName: string): LlmError {
  const message = details.message ?? `${displayName} reported an error inside the event stream`
  const status = details.status
  if (status !== undefined) return new LlmError(message, httpErrorCode(status, details), { status })
  const code = isQuotaError(details)
    ? 'QUOTA'
    : isContextError(details)
      ? 'CONTEXT_WINDOW_EXCEEDED'
      : details.type === 'invalid_request_error'
        ? 'INVALID_REQUEST'
        : 'SERVER'
  return new LlmError(message, code)
}

/**
 * `retry-after-ms` (milliseconds) else `Retry-After` (seconds, or an HTTP-date minus now), as failure
 * facts: undefined unless finite and > 0.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const wait = requestedWaitMs(headers, now)
  return wait !== undefined && wait > 0 ? wait : undefined
}

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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined
}

/** Redact first, then cut: a key straddling the cut must not survive as a prefix (docs/security.md#what-is-shown). */
function cut(text: string): string {
  return clipRedacted(text, MAX_MESSAGE_CHARS)
}
