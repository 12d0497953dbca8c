/**
 * The config fields every model route shares (each adapter's `config.ts` adds its wire-specific ones): the route
 * name, the base URL and its credential rule (docs/security.md#urls), the key's variable, the catalog row, the extra
 * headers and body, the bounds of a call (docs/model-calls.md#bounds) and the cross-field checks. One rule, one place:
 * both adapters refuse, default and word these the same.
 */
import { z } from 'zod'
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_STREAM_TOTAL_TIMEOUT_MS } from '../call-bounds.js'
import { intInRange } from '../config-field.js'
import type { JsonValue } from '../ids.js'
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

/** What `routeShape` builds a route's fields from. */
export interface RouteShapeOptions<K extends z.ZodType, M extends z.ZodType> {
  /** The route name when the config gives none (`deepseek`, `anthropic`). */
  provider: string
  /** Which query strings `baseURL` may carry (`baseUrlField`). */
  query: 'no-credentials' | 'none'
  /** The `apiKeyEnv` field (a variable name; `null` too for a route to keyless servers). */
  apiKeyEnv: K
  /** The schema of one catalog row. */
  model: M
  /** Header names the adapter sets itself. */
  forbiddenHeaders: readonly string[]
  /** Body keys the adapter sets itself. */
  reservedBodyKeys: readonly string[]
}

/**
 * The fields every route's config has, in order: `provider`, `displayName`, `baseURL`, `apiKeyEnv`, `models`, the
 * bounds, `headers`, `extraBody`. An adapter adds its own and makes the object strict, with `checkRoute`.
 */
export function routeShape<K extends z.ZodType, M extends z.ZodType>(options: RouteShapeOptions<K, M>) {
  return {
    provider: routeNameField(options.provider),
    displayName: nonEmptyString.optional(),
    // the messages never repeat the value: it may hold the secret
    baseURL: baseUrlField(options.query).optional(),
    apiKeyEnv: options.apiKeyEnv,
    models: z.array(options.model).optional(),
    ...callBoundsShape(),
    headers: headersField(options.forbiddenHeaders),
    extraBody: extraBodyField(options.reservedBodyKeys).default({}),
  }
}

/** A route's config as `routeShape` parsed it. */
export interface ParsedRoute<K, M> extends CallBoundsConfig {
  provider: string
  displayName?: string | undefined
  baseURL?: string | undefined
  apiKeyEnv?: K | undefined
  models?: M[] | undefined
  headers: Record<string, string>
  extraBody: Record<string, unknown>
}

/** Where a route calls when its config names no `baseURL`: the provider's own API, and what goes with it. */
export interface HomeRoute<K, M> {
  displayName: string
  baseURL: string
  apiKeyEnv: K
  /** The catalog at home, and (by default none) when another `baseURL` is given. */
  models: readonly M[]
  modelsElsewhere?: readonly M[]
}

/** The resolved fields every route has. */
export interface ResolvedRoute<K, M> extends CallBoundsConfig {
  readonly provider: string
  readonly displayName: string
  readonly baseURL: string
  readonly apiKeyEnv: K
  readonly models: readonly M[]
  readonly headers: Readonly<Record<string, string>>
  readonly extraBody: Readonly<Record<string, JsonValue>>
}

/**
 * The route's fields with their defaults: without a `baseURL` the route calls `home` (its URL, its key variable, its
 * display name and catalog); with one, `displayName` defaults to the route name and the catalog to
 * `home.modelsElsewhere` (`[]`).
 */
export function resolveRoute<K, M>(parsed: ParsedRoute<K, M>, home: HomeRoute<K, M>): ResolvedRoute<K, M> {
  const atHome = parsed.baseURL === undefined
  return {
    provider: parsed.provider,
    displayName: parsed.displayName ?? (atHome ? home.displayName : parsed.provider),
    baseURL: parsed.baseURL ?? home.baseURL,
    apiKeyEnv: parsed.apiKeyEnv === undefined ? home.apiKeyEnv : parsed.apiKeyEnv,
    models: parsed.models ?? structuredClone(atHome ? home.models : (home.modelsElsewhere ?? [])),
    ...callBoundsOf(parsed),
    headers: parsed.headers,
    extraBody: parsed.extraBody as Record<string, JsonValue>,
  }
}

/**
 * The cross-field rules of a route: a `baseURL` without an explicit `apiKeyEnv` is refused (so a default provider's
 * key is never sent to a URL the operator typed; `apiKeyHint` says what to give), and model ids are unique.
 */
export function checkRoute(
  config: { baseURL?: string | undefined; apiKeyEnv?: unknown; models?: readonly { id: string }[] | undefined },
  ctx: z.RefinementCtx,
  apiKeyHint: string,
): void {
  if (config.baseURL !== undefined && config.apiKeyEnv === undefined) {
    ctx.addIssue({ code: 'custom', path: ['apiKeyEnv'], message: `required when baseURL is given (${apiKeyHint})` })
  }
  const ids = new Set<string>()
  config.models?.forEach((model, i) => {
    if (ids.has(model.id)) {
      ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: `duplicate model id "${model.id}"` })
    }
    ids.add(model.id)
  })
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
