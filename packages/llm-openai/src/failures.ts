/**
 * The catch ladder: whatever went wrong during one call becomes exactly one `LlmError`,
 * first matching rung wins. Transport failures carry their cause (`connect ECONNREFUSED …`) in the
 * message, and every message is scrubbed of the call's secrets before it leaves the adapter.
 */
import { LlmError, redactSecrets, StreamTimeoutError } from '@bridle/llm'
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai'
import { abortError } from './abort.js'
import type { CallRecord } from './client.js'
import type { OpenAICompatConfig } from './config.js'
import { httpError } from './http-errors.js'

export interface LadderContext {
  config: OpenAICompatConfig
  /** The caller's signal (not the internal one). */
  signal?: AbortSignal
  /** The call's internal signal: aborted with a reason when the route was disposed mid-call. */
  internal?: AbortSignal
  record: CallRecord
}

/** Maps any thrown value of a call to the `LlmError` the adapter throws (before redaction). */
export function toLlmError(error: unknown, context: LadderContext): LlmError {
  const { config, signal, record } = context
  if (error instanceof StreamTimeoutError) return error
  if (signal?.aborted === true) return new LlmError('request aborted', 'ABORTED')
  if (context.internal?.aborted === true && context.internal.reason instanceof LlmError)
    return abortError(context.internal)
  if (error instanceof LlmError) return error
  if (error instanceof APIUserAbortError) return new LlmError('request aborted', 'ABORTED')
  if (error instanceof APIConnectionTimeoutError) {
    return new LlmError(`request to ${config.baseURL} timed out after ${config.timeoutMs}ms`, 'TIMEOUT')
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const captured = record.failure
    const text = captured?.status === error.status ? captured.text : ''
    const headers = captured?.headers ?? (error.headers as Headers | undefined)
    return httpError(error.status, headers, text, config.displayName)
  }
  if (error instanceof APIConnectionError) {
    return new LlmError(withCause(`request to ${config.baseURL} failed`, error), 'TRANSPORT', { cause: error })
  }
  return new LlmError(withCause(`event stream from ${config.baseURL} failed`, error), 'TRANSPORT', { cause: error })
}

/**
 * `error` with every secret the process holds, and `secrets`, replaced by `[redacted]` in its message and facts. The
 * provider's own words were redacted before they were cut (http-errors.ts); this is the last guard for the rest.
 */
export function redactError(error: LlmError, secrets: readonly string[]): LlmError {
  const message = redactSecrets(error.message, secrets)
  const requestId = error.failure.requestId
  const cleanId = requestId === undefined ? undefined : redactSecrets(requestId, secrets)
  if (message === error.message && cleanId === requestId) return error
  const { status, providerRetryAfterMs } = error.failure
  return new LlmError(message, error.code, {
    ...(status === undefined ? {} : { status }),
    ...(providerRetryAfterMs === undefined ? {} : { providerRetryAfterMs }),
    ...(cleanId === undefined ? {} : { requestId: cleanId }),
  })
}

/** `<what>: <cause>`, where the cause is what the socket layer said (`connect ECONNREFUSED 127.0.0.1:9`). */
export function withCause(what: string, error: unknown): string {
  const cause = rootCause(error)
  return cause === undefined ? what : `${what}: ${cause}`
}

/** Messages of wrappers that say nothing about what went wrong. */
const GENERIC = new Set(['connection error.', 'fetch failed', 'terminated', 'request timed out.'])

/**
 * The most specific description in an error's `cause` chain (the deepest non-generic message, also
 * inside an `AggregateError`), with its `code` appended when the message does not already name it.
 */
export function rootCause(error: unknown): string | undefined {
  let message: string | undefined
  let code: string | undefined
  const seen = new Set<unknown>()
  let current: unknown = error
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null && !seen.has(current); depth++) {
    seen.add(current)
    const text = (current as { message?: unknown }).message
    if (typeof text === 'string' && text.trim() !== '' && !GENERIC.has(text.trim().toLowerCase())) message = text.trim()
    const ownCode = (current as { code?: unknown }).code
    if (typeof ownCode === 'string' && ownCode !== '') code = ownCode
    const inner = (current as { errors?: unknown }).errors
    const cause = (current as { cause?: unknown }).cause
    current = cause ?? (Array.isArray(inner) ? inner[0] : undefined)
  }
  if (message === undefined) return code
  const flat = message.replace(/\s+/g, ' ')
  return code === undefined || flat.includes(code) ? flat : `${flat} (${code})`
}
