/**
 * The catch ladder of a model call: whatever went wrong becomes exactly one `LlmError`, first matching rung wins.
 * Transport failures carry their cause (`connect ECONNREFUSED …`) in the message, and every message is scrubbed of
 * the call's secrets before it leaves the adapter: redacted first, cut after (docs/security.md#what-is-shown).
 */
import { StreamTimeoutError } from '../call-bounds.js'
import { redactSecrets } from '../display-redaction.js'
import { LlmError } from '../errors.js'
import { callAbortError } from './call-abort.js'
import { sdkHttpError, type SdkErrorClasses, type SdkHttpError } from './sdk.js'

/** What the ladder needs to know of the call. */
export interface CallErrorContext {
  /** Named in timeout and transport messages. */
  readonly baseURL: string
  /** The per-attempt timeout, named when no response headers came within it. */
  readonly timeoutMs: number
  /** The caller's signal (not the internal one). */
  readonly caller?: AbortSignal | undefined
  /** The call's internal signal: aborted with an `LlmError` reason when the route was disposed or time ran out. */
  readonly internal: AbortSignal
  readonly sdk: SdkErrorClasses
  /** The error of a non-2xx answer: the adapter reads its provider's error body. */
  httpError(error: SdkHttpError): LlmError
}

/** Maps any thrown value of a call to the `LlmError` the adapter throws (before redaction). */
export function toCallError(error: unknown, context: CallErrorContext): LlmError {
  const { baseURL, sdk } = context
  if (error instanceof StreamTimeoutError) return error
  if (context.caller?.aborted === true) return new LlmError('request aborted', 'ABORTED')
  if (context.internal.aborted && context.internal.reason instanceof LlmError) return callAbortError(context.internal)
  if (error instanceof LlmError) return error
  if (error instanceof sdk.APIUserAbortError) return new LlmError('request aborted', 'ABORTED')
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new LlmError(`request to ${baseURL} timed out after ${context.timeoutMs}ms`, 'TIMEOUT')
  }
  const answer = sdkHttpError(error, sdk)
  if (answer !== undefined) return context.httpError(answer)
  if (error instanceof sdk.APIConnectionError) {
    return new LlmError(withCause(`request to ${baseURL} failed`, error), 'TRANSPORT', { cause: error })
  }
  return new LlmError(withCause(`event stream from ${baseURL} failed`, error), 'TRANSPORT', { cause: error })
}

/**
 * `error` with every secret the process holds, and `secrets`, replaced by `[redacted]` in its message and request
 * id; then, when `maxChars` is given, the message cut to that length (`…` last). Redacted first, cut after, so a cut
 * never leaves a secret's prefix behind.
 */
export function redactCallError(error: LlmError, secrets: readonly string[], maxChars?: number): LlmError {
  const clean = redactSecrets(error.message, secrets)
  const message = maxChars !== undefined && clean.length > maxChars ? `${clean.slice(0, maxChars - 1)}…` : clean
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
 * The most specific description in an error's `cause` chain (the deepest non-generic message, also inside an
 * `AggregateError`), with its `code` appended when the message does not already name it.
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
