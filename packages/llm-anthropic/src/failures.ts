/**
 * Failure classification (README.md#failures): a non-2xx answer, an `error` event inside the stream, or whatever
 * else went wrong during one call becomes exactly one `LlmError` with a code from `@bridle/llm`'s table and the
 * facts a retry policy needs (status, the provider's retry-after, the request id). Every message is scrubbed of the
 * call's secrets before it leaves the adapter: redacted first, cut to length after, so a cut never splits a key.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk'
import { LlmError, isContextWindowExceededError, isQuotaExceededError, isRecord, redactSecrets } from '@bridle/llm'
import { abortError } from './deadlines.js'

const MAX_MESSAGE_CHARS = 500

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
  const retryAfter = headers === undefined ? undefined : requestedWaitMs(headers, now)
  const requestId = headers?.get('request-id') || details.requestId
  return new LlmError(describe(displayName, `HTTP ${status}`, details), errorCode(status, details), {
    status,
    ...(retryAfter !== undefined && retryAfter > 0 ? { providerRetryAfterMs: retryAfter } : {}),
    ...(requestId ? { requestId } : {}),
  })
}

/** An `error` event inside a 2xx stream: classified by its type's status (`overloaded_error` → 529 → `SERVER`). */
export function streamErrorEvent(payload: unknown, displayName: string): LlmError {
  const details = errorDetails(payload)
  const status = details.type === undefined ? undefined : STATUS_OF_TYPE[details.type]
  const code = status === undefined ? 'SERVER' : errorCode(status, details)
  return new LlmError(describe(displayName, 'error event in the stream', details), code, {
    ...(status === undefined ? {} : { status }),
    ...(details.requestId === undefined ? {} : { requestId: details.requestId }),
  })
}

function describe(displayName: string, where: string, details: ErrorDetails): string {
  const kind = details.type === undefined ? '' : ` ${details.type}`
  return `${displayName} API error (${where}${kind})${details.message === undefined ? '' : `: ${details.message}`}`
}

/**
 * How long the server asked to wait, in ms (≥ 0): a positive `retry-after-ms`, else `retry-after` in seconds or as
 * an HTTP date (a past date is 0). Undefined when neither says anything usable.
 */
export function requestedWaitMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN)
  if (Number.isFinite(ms) && ms > 0) return ms
  const after = headers.get('retry-after')?.trim() ?? ''
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000
  const date = after === '' ? Number.NaN : Date.parse(after)
  if (!Number.isNaN(date)) return Math.max(0, date - now)
  return ms === 0 ? 0 : undefined
}

export interface LadderContext {
  baseURL: string
  displayName: string
  timeoutMs: number
  /** The caller's signal. */
  signal?: AbortSignal
  /** The call's internal signal: aborted with an `ABORTED` reason when the route was disposed. */
  internal: AbortSignal
}

/** Maps any thrown value of a call to the `LlmError` the adapter throws (before redaction). First rung wins. */
export function toLlmError(error: unknown, context: LadderContext): LlmError {
  if (error instanceof LlmError && error.code === 'TIMEOUT') return error
  if (context.signal?.aborted === true) return new LlmError('request aborted', 'ABORTED')
  if (context.internal.aborted && context.internal.reason instanceof LlmError) return abortError(context.internal)
  if (error instanceof LlmError) return error
  if (error instanceof APIUserAbortError) return new LlmError('request aborted', 'ABORTED')
  if (error instanceof APIConnectionTimeoutError) {
    return new LlmError(`request to ${context.baseURL} timed out after ${context.timeoutMs}ms`, 'TIMEOUT')
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const body = error.error ?? error.message
    return httpError(error.status, error.headers as Headers | undefined, body, context.displayName)
  }
  if (error instanceof APIConnectionError) {
    return new LlmError(withCause(`request to ${context.baseURL} failed`, error), 'TRANSPORT', { cause: error })
  }
  return new LlmError(withCause(`event stream from ${context.baseURL} failed`, error), 'TRANSPORT', { cause: error })
}

/** `error` with every secret replaced by `[redacted]`, then its message cut to 500 characters. */
export function scrubbed(error: LlmError, secrets: readonly string[]): LlmError {
  const clean = redactSecrets(error.message, secrets)
  const message = clean.length > MAX_MESSAGE_CHARS ? `${clean.slice(0, MAX_MESSAGE_CHARS - 1)}…` : clean
  const requestId = error.failure.requestId === undefined ? undefined : redactSecrets(error.failure.requestId, secrets)
  if (message === error.message && requestId === error.failure.requestId) return error
  const { status, providerRetryAfterMs } = error.failure
  return new LlmError(message, error.code, {
    ...(status === undefined ? {} : { status }),
    ...(providerRetryAfterMs === undefined ? {} : { providerRetryAfterMs }),
    ...(requestId === undefined ? {} : { requestId }),
  })
}

/** `<what>: <the deepest specific cause>` (`connect ECONNREFUSED 127.0.0.1:9`), for transport failures. */
function withCause(what: string, error: unknown): string {
  const causes: string[] = []
  for (let current = error, depth = 0; isRecord(current) && depth < 8; depth++) {
    const { message, code, cause } = current as { message?: unknown; code?: unknown; cause?: unknown }
    if (typeof message === 'string' && !/^(connection error\.|fetch failed|terminated)$/i.test(message.trim())) {
      causes.push(typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message)
    }
    current = cause
  }
  const last = causes.at(-1)
  return last === undefined ? what : `${what}: ${oneLine(last)}`
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
