/**
 * Failures and errors. `LlmFailure` is the frozen, serializable fact record a failed call leaves behind;
 * `HarnessError` is the Bridle-wide coded error; `LlmError` carries an `LlmFailure`. A bad plugin config is
 * `ConfigError` (config.ts); a bad API key is refused in credentials.ts.
 */

/** Serializable facts about a failed model call. */
export interface LlmFailure {
  readonly message: string
  readonly code: string
  /** HTTP status, an integer in 100..599. */
  readonly status?: number
  /** Provider-requested delay before a retry, finite and > 0. */
  readonly providerRetryAfterMs?: number
  /** The provider's request id, non-empty. */
  readonly requestId?: string
}

/** The optional facts an `LlmError` may carry. */
export interface LlmErrorFacts {
  status?: number
  providerRetryAfterMs?: number
  requestId?: string
  cause?: unknown
}

/** Failure codes match this pattern (`RATE_LIMIT`, `HTTP_418`, ...). */
export const FAILURE_CODE_PATTERN = /^[A-Z][A-Z0-9_]*$/

/** The codes the seam itself and the adapter contract use (the README lists them). */
export const LLM_ERROR_CODES = Object.freeze([
  'NO_ADAPTER',
  'INVALID_ADAPTER',
  'DUPLICATE_ADAPTER',
  'REGISTRATION_DISPOSED',
  'INVALID_PREPARED_CALL',
  'INVALID_CATALOG',
  'INVALID_MODEL_INFO',
  'INVALID_MODEL_CONTEXT',
  'INVALID_MODEL_MAX_TOKENS',
  'INVALID_MODEL_REASONING',
  'UNSUPPORTED_REASONING_EFFORT',
  'UNSUPPORTED_CONTENT',
  'MISSING_CREDENTIAL',
  'INVALID_CREDENTIAL',
  'AUTH',
  'QUOTA',
  'RATE_LIMIT',
  'CONTEXT_WINDOW_EXCEEDED',
  'INVALID_REQUEST',
  'SERVER',
  'TIMEOUT',
  'TRANSPORT',
  'RESPONSE_TOO_LARGE',
  'STREAM_CLOSED',
  'MALFORMED_RESPONSE',
  'EMPTY_RESPONSE',
  'ABORTED',
  'UNKNOWN',
] as const)

export type LlmErrorCode = (typeof LLM_ERROR_CODES)[number]

/** True when `code` is a well-formed failure code. */
export function isFailureCode(code: unknown): code is string {
  return typeof code === 'string' && FAILURE_CODE_PATTERN.test(code)
}

function ownData(value: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(value, key)
  return descriptor && 'value' in descriptor ? descriptor.value : undefined
}

function validStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599
}

function validRetryAfter(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
}

function validRequestId(value: unknown): value is string {
  return typeof value === 'string' && value !== ''
}

/**
 * True when `value` is a valid `LlmFailure`: own data properties, string `message`, well-formed `code`,
 * and each optional fact valid when present. Extra keys are tolerated.
 */
export function isLlmFailure(value: unknown): value is LlmFailure {
  if (typeof value !== 'object' || value === null) return false
  if (typeof ownData(value, 'message') !== 'string' || !isFailureCode(ownData(value, 'code'))) return false
  const status = ownData(value, 'status')
  const retry = ownData(value, 'providerRetryAfterMs')
  const requestId = ownData(value, 'requestId')
  return (
    (status === undefined || validStatus(status)) &&
    (retry === undefined || validRetryAfter(retry)) &&
    (requestId === undefined || validRequestId(requestId))
  )
}

/**
 * Builds a frozen `LlmFailure` from a message, a code and optional facts. Invalid facts are dropped; an
 * ill-formed code becomes `UNKNOWN`. Never throws.
 */
export function createLlmFailure(
  message: unknown,
  code: unknown,
  facts?: LlmErrorFacts | LlmFailure | null,
): LlmFailure {
  const failure: { message: string; code: string; status?: number; providerRetryAfterMs?: number; requestId?: string } =
    {
      message: typeof message === 'string' ? message : String(message),
      code: isFailureCode(code) ? code : 'UNKNOWN',
    }
  if (typeof facts === 'object' && facts !== null) {
    const status = ownData(facts, 'status')
    const retry = ownData(facts, 'providerRetryAfterMs')
    const requestId = ownData(facts, 'requestId')
    if (validStatus(status)) failure.status = status
    if (validRetryAfter(retry)) failure.providerRetryAfterMs = retry
    if (validRequestId(requestId)) failure.requestId = requestId
  }
  return Object.freeze(failure)
}

/** The Bridle-wide coded error. Subclasses set their own `name`. */
export class HarnessError extends Error {
  override name = 'HarnessError'
  readonly code: string

  constructor(message: string, code: string, options?: { cause?: unknown }) {
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined)
    this.code = code
  }
}

/** A failed model call. Its own frozen `failure` holds the serializable facts. */
export class LlmError extends HarnessError {
  override name = 'LlmError'
  readonly failure: LlmFailure

  /**
   * `facts` may be a whole `LlmFailure` (its message/code are ignored). Invalid facts are dropped and an
   * ill-formed code becomes `UNKNOWN`: building an error never fails.
   */
  constructor(message: string, code: string, facts?: LlmErrorFacts | LlmFailure) {
    const failure = createLlmFailure(message, code, facts)
    const hasCause = typeof facts === 'object' && facts !== null && 'cause' in facts
    super(failure.message, failure.code, hasCause ? { cause: (facts as LlmErrorFacts).cause } : undefined)
    this.failure = failure
  }

  /** Rebuilds an error from failure facts. */
  static from(failure: LlmFailure): LlmError {
    return new LlmError(failure.message, failure.code, failure)
  }
}

/** Renders an error for diagnostics: `message: cause-message: …`, at most 8 levels, cycle-safe. */
export function errorChain(value: unknown): string {
  const parts: string[] = []
  const seen = new Set<unknown>()
  let current: unknown = value
  for (let depth = 0; depth < 8; depth++) {
    if (seen.has(current)) break
    seen.add(current)
    parts.push(describe(current))
    if (typeof current !== 'object' || current === null) break
    const cause = (current as { cause?: unknown }).cause
    if (cause === undefined) break
    current = cause
  }
  return parts.join(': ')
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'object' && value !== null) {
    const message = (value as { message?: unknown }).message
    if (typeof message === 'string' && message !== '') return message
    const name = (value as { name?: unknown }).name
    if (typeof name === 'string' && name !== '') return name
    try {
      return JSON.stringify(value) ?? String(value)
    } catch {
      return Object.prototype.toString.call(value)
    }
  }
  return String(value)
}

/**
 * Normalizes any thrown value into an `LlmFailure`. A value whose own `failure` data property is a valid
 * failure with the same `code` as the value is trusted (structural, so it works across module copies);
 * another `HarnessError`-like value with a well-formed code keeps `{message, code}`; anything else becomes
 * `{message: errorChain(value), code: 'UNKNOWN'}`.
 */
export function toLlmFailure(value: unknown): LlmFailure {
  if (typeof value === 'object' && value !== null) {
    const failure = ownData(value, 'failure')
    const code = ownData(value, 'code')
    if (isLlmFailure(failure) && failure.code === code) return createLlmFailure(failure.message, failure.code, failure)
    if (value instanceof HarnessError && isFailureCode(value.code)) return createLlmFailure(value.message, value.code)
  }
  return createLlmFailure(errorChain(value), 'UNKNOWN')
}

const CONTEXT_WINDOW_PATTERNS = [
  /context length exceeded/i,
  /maximum context length/i,
  /context_length_exceeded/i,
  /exceeds the available context size/i,
  /too large for the model'?s context/i,
  /\binput\b[^.!?\n]*\bexceeds?\b[^.!?\n]*\bcontext\b/i,
]

/** Conservatively recognizes a provider message saying the prompt does not fit the context window. */
export function isContextWindowExceededError(text: string): boolean {
  return typeof text === 'string' && CONTEXT_WINDOW_PATTERNS.some((pattern) => pattern.test(text))
}

const QUOTA_PATTERN =
  /insufficient[ _](?:quota|balance|credits?)|quota exceeded|exceeded your current quota|credits? exhausted|out of credits/i

/** Recognizes a provider message saying the balance, credits or quota are exhausted. */
export function isQuotaExceededError(text: string): boolean {
  return typeof text === 'string' && QUOTA_PATTERN.test(text)
}
