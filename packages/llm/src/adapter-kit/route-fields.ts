/**
 * The config fields every model route shares, one builder each: the route name, the base URL and its credential
 * rule (docs/security.md#urls), the key's variable, the extra headers and body, a catalog row's common fields and the
 * bounds of a call (docs/model-calls.md#bounds), with the same names, ranges, defaults and wording in every adapter.
 */
import { z } from 'zod'
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_STREAM_TOTAL_TIMEOUT_MS } from '../call-bounds.js'
import { intInRange } from '../config-field.js'
import { urlCredentials } from '../url-credentials.js'
import { DEFAULT_MAX_LINE_BYTES } from './line-meter.js'

/** The longest timer Node runs (2^31 − 1 ms): the upper bound of every timeout field. */
export const MAX_TIMER_MS = 2_147_483_647
/** The upper bound of `maxLineBytes`: 1 GiB. */
const MAX_LINE_BYTES_LIMIT = 1024 * 1024 * 1024

export const nonEmptyString = z.string().min(1, 'must be a non-empty string')

/** The route name (`provider`): non-empty, no whitespace, at most 64 characters. */
export function routeNameField(fallback: string) {
  return z
    .string()
    .min(1, 'must be a non-empty string')
    .max(64, 'must be at most 64 characters')
    .regex(/^\S+$/, 'must not contain whitespace')
    .default(fallback)
}

/** The name of the environment variable that holds the key. */
export function envVarNameField() {
  return z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
}

/**
 * An absolute `http:`/`https:` base URL that carries no credential: no userinfo, and either no credential query
 * parameter (`query: 'no-credentials'`: `?api-version=…` is fine) or no query string at all (`query: 'none'`). The
 * messages name the parameter, never a value.
 */
export function baseUrlField(query: 'no-credentials' | 'none') {
  return z
    .string()
    .refine(isHttpUrl, 'must be an absolute http: or https: URL')
    .superRefine((url, ctx) => {
      const problem = baseUrlProblem(url, query)
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `${problem}; give the key through apiKeyEnv` })
    })
}

/**
 * Why a base URL may not be used as given (docs/security.md#urls), or undefined: userinfo, a query parameter whose
 * name marks a credential (`api-key`, `token`, `sig`, …; `api-version` is fine), or with `query: 'none'` any query.
 */
export function baseUrlProblem(url: string, query: 'no-credentials' | 'none' = 'no-credentials'): string | undefined {
  const found = urlCredentials(url)
  if (found.userinfo) return 'must not contain credentials (user:password@)'
  if (query === 'none') return hasQuery(url) ? 'must not carry a query string' : undefined
  if (found.parameters.length === 0) return undefined
  const names = found.parameters.map((name) => `"${name}"`).join(', ')
  return `must not carry a credential in its query string (parameter ${names})`
}

/** Header names every route sets itself: the key, the attribution, the event stream it accepts, the body's type. */
export const ROUTE_HEADERS: readonly string[] = Object.freeze(['authorization', 'user-agent', 'accept', 'content-type'])

/** Body keys every route sets itself from the neutral request. */
export const ROUTE_BODY_KEYS: readonly string[] = Object.freeze([
  'model',
  'messages',
  'stream',
  'tools',
  'tool_choice',
  'temperature',
  'max_tokens',
])

/** The header names a route owns (`headers` may not set them): every route's, then the wire's own. */
export function routeHeaders(...wire: string[]): readonly string[] {
  return Object.freeze([...ROUTE_HEADERS, ...wire])
}

/** The body keys a route owns (`extraBody` may not set them): every route's, then the wire's own. */
export function routeBodyKeys(...wire: string[]): readonly string[] {
  return Object.freeze([...ROUTE_BODY_KEYS, ...wire])
}

/** Extra request headers; the names the adapter sets itself (`forbidden`, lower case) are refused. */
export function headersField(forbidden: readonly string[]) {
  return z
    .record(z.string(), z.string())
    .superRefine((headers, ctx) => {
      for (const name of Object.keys(headers)) {
        if (forbidden.includes(name.toLowerCase())) {
          ctx.addIssue({ code: 'custom', path: [name], message: `header "${name}" is set by the adapter` })
        }
      }
    })
    .default({})
}

/** Keys merged into every request body; the keys the adapter sets itself (`reserved`) are refused. */
export function extraBodyField(reserved: readonly string[]) {
  return z.record(z.string(), z.json()).superRefine((body, ctx) => {
    for (const key of Object.keys(body)) {
      if (reserved.includes(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `"${key}" is set by the adapter and may not be overridden`,
        })
      }
    }
  })
}

/** The fields of a catalog row every route has: a model id with its context window and optional defaults. */
export function catalogModelShape(reserved: readonly string[]) {
  return {
    id: nonEmptyString,
    name: nonEmptyString.optional(),
    description: z.string().optional(),
    contextWindow: z.number().int().positive(),
    defaultMaxTokens: z.number().int().positive().optional(),
    extraBody: extraBodyField(reserved).optional(),
  }
}

/** The bounds of one call (docs/model-calls.md#bounds), with the same names, ranges and defaults in every route. */
export function callBoundsShape() {
  return {
    timeoutMs: intInRange(1, MAX_TIMER_MS, 120_000),
    maxRetries: intInRange(0, 10, 2),
    maxRetryDelayMs: intInRange(0, MAX_TIMER_MS, 60_000),
    streamIdleTimeoutMs: intInRange(1, MAX_TIMER_MS, 300_000),
    streamDataTimeoutMs: intInRange(1, MAX_TIMER_MS, 600_000),
    streamTotalTimeoutMs: intInRange(1, MAX_TIMER_MS, DEFAULT_STREAM_TOTAL_TIMEOUT_MS),
    maxResponseBytes: intInRange(1024, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_RESPONSE_BYTES),
    maxLineBytes: intInRange(64, MAX_LINE_BYTES_LIMIT, DEFAULT_MAX_LINE_BYTES),
  }
}

/** The resolved bounds of one call. */
export interface CallBoundsConfig {
  /** Connect plus response headers, per attempt. */
  readonly timeoutMs: number
  /** Retries of the request phase, all before the first chunk. */
  readonly maxRetries: number
  /** Longest wait between two attempts; a server asking for more ends the retries. */
  readonly maxRetryDelayMs: number
  /** Longest silence while a read is pending; any byte re-arms it. */
  readonly streamIdleTimeoutMs: number
  /** Longest wait for progress (a token, a finish reason); keep-alives and empty events do not count. */
  readonly streamDataTimeoutMs: number
  /** Longest a whole call may take, from the request to the last byte. */
  readonly streamTotalTimeoutMs: number
  /** Most bytes one response's event stream may carry. */
  readonly maxResponseBytes: number
  /** Longest SSE line, and longest event (its non-comment lines together), in bytes. */
  readonly maxLineBytes: number
}

/** The bounds of a parsed config, picked. */
export function callBoundsOf(parsed: CallBoundsConfig): CallBoundsConfig {
  const { timeoutMs, maxRetries, maxRetryDelayMs, streamIdleTimeoutMs, streamDataTimeoutMs } = parsed
  const { streamTotalTimeoutMs, maxResponseBytes, maxLineBytes } = parsed
  return {
    timeoutMs,
    maxRetries,
    maxRetryDelayMs,
    streamIdleTimeoutMs,
    streamDataTimeoutMs,
    streamTotalTimeoutMs,
    maxResponseBytes,
    maxLineBytes,
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

function hasQuery(value: string): boolean {
  try {
    return new URL(value).search !== ''
  } catch {
    return false
  }
}
