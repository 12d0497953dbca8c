/**
 * HTTP and in-stream error classification: a non-2xx answer or an error event
 * becomes an `LlmError` with a code from `@bridle/llm`'s vocabulary and the facts a retry policy
 * needs (status, provider retry-after, request id).
 */
import { LlmError, clipRedacted, isContextWindowExceededError, isQuotaExceededError } from '@bridle/llm'
import { inStreamFailureCode, retryAfterMs } from '@bridle/llm/adapter-kit'
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
 * the error carries classifies it by the HTTP table, so a 4xx (Groq's `tool_use_failed` 400) is never `SERVER`, and
 * no in-stream 4xx is retried: 429 and 408 are `HTTP_429`/`HTTP_408` there. Without a status, an
 * `invalid_request_error` type is `INVALID_REQUEST`; quota and context wording keep their codes; else `SERVER`.
 */
export function streamErrorEvent(details: ErrorDetails, displayName: string): LlmError {
  const message = details.message ?? `${displayName} reported an error inside the event stream`
  const status = details.status
  if (status !== undefined)
    return new LlmError(message, inStreamFailureCode(status, httpErrorCode(status, details)), { status })
  const code = isQuotaError(details)
    ? 'QUOTA'
    : isContextError(details)
      ? 'CONTEXT_WINDOW_EXCEEDED'
      : details.type === 'invalid_request_error'
        ? 'INVALID_REQUEST'
        : 'SERVER'
  return new LlmError(message, code)
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
