/**
 * Configuration of one `llm-anthropic` route: the zod schema, the Claude catalog, and `resolveConfig`, the pure
 * parse-plus-defaults step that `Config` (the cordis hook) runs. The figures of the catalog are listed with their
 * date in this package's README ("Figures this package relies on").
 */
import { deepFreeze, intInRange, parseConfig, urlHasCredentials, type JsonValue } from '@bridle/llm'
import { z } from 'zod'

/** Base URL used when `baseURL` is omitted. The SDK appends `/v1/messages`. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com'

/** Body keys the adapter owns; `extraBody` may not set them. */
export const RESERVED_BODY_KEYS: readonly string[] = Object.freeze([
  'model',
  'messages',
  'system',
  'stream',
  'tools',
  'tool_choice',
  'temperature',
  'stop_sequences',
  'max_tokens',
  'thinking',
  'output_config',
  'cache_control',
])

/** Header names the adapter owns; `headers` may not set them. */
export const FORBIDDEN_HEADERS: readonly string[] = Object.freeze([
  'x-api-key',
  'authorization',
  'anthropic-version',
  'user-agent',
  'accept',
  'content-type',
])

const MAX_TIMER_MS = 2_147_483_647
const MAX_LINE_BYTES = 1024 * 1024 * 1024
/** Max output tokens when neither the caller nor the catalog says: the Messages API requires `max_tokens`. */
export const FALLBACK_MAX_TOKENS = 4096
/** Minimum cacheable prefix assumed for a model the catalog does not list: the largest documented one. */
export const FALLBACK_MIN_CACHEABLE_TOKENS = 4096

const extraBodySchema = z.record(z.string(), z.json()).superRefine((body, ctx) => {
  for (const key of Object.keys(body)) {
    if (RESERVED_BODY_KEYS.includes(key)) {
      ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is set by the adapter and may not be overridden` })
    }
  }
})

const nonEmptyString = z.string().min(1, 'must be a non-empty string')

/**
 * How a model thinks when a reasoning effort is requested: `budget` sends `thinking: {type: 'enabled',
 * budget_tokens}` with the effort's budget; `adaptive` sends `thinking: {type: 'adaptive'}` and
 * `output_config: {effort}`.
 */
const ThinkingSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('budget'), budgets: z.record(nonEmptyString, z.number().int().min(1024)) }).strict(),
  z.object({ mode: z.literal('adaptive'), efforts: z.array(nonEmptyString).min(1, 'must list an effort') }).strict(),
])

/** One catalog row: a model id with its context window, output limit, cache minimum and thinking mode. */
export const ModelEntrySchema = z
  .object({
    id: nonEmptyString,
    name: nonEmptyString.optional(),
    description: z.string().optional(),
    contextWindow: z.number().int().positive(),
    defaultMaxTokens: z.number().int().positive().optional(),
    /** Shortest prefix (in tokens) the API caches for this model; a shorter breakpoint is ignored by the API. */
    minCacheableTokens: z.number().int().positive().optional(),
    thinking: ThinkingSchema.optional(),
    defaultReasoningEffort: nonEmptyString.optional(),
    extraBody: extraBodySchema.optional(),
  })
  .strict()
  .superRefine((entry, ctx) => {
    const efforts = effortsOf(entry.thinking)
    if (entry.defaultReasoningEffort !== undefined && !efforts.includes(entry.defaultReasoningEffort)) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaultReasoningEffort'],
        message: `"${entry.defaultReasoningEffort}" is not an effort of thinking`,
      })
    }
  })

export type ModelEntry = Readonly<z.output<typeof ModelEntrySchema>>

/** The effort names a thinking mode offers, in order. */
export function effortsOf(thinking: ModelEntry['thinking']): string[] {
  if (thinking === undefined) return []
  return thinking.mode === 'budget' ? Object.keys(thinking.budgets) : [...thinking.efforts]
}

/** How the adapter places prompt-cache breakpoints (README.md#prompt-caching). */
export const CachePolicySchema = z.enum(['bridle', 'none'])

/** The strict schema of the plugin config. */
export const ConfigSchema = z
  .object({
    provider: z
      .string()
      .min(1, 'must be a non-empty string')
      .max(64, 'must be at most 64 characters')
      .regex(/^\S+$/, 'must not contain whitespace')
      .default('anthropic'),
    displayName: nonEmptyString.optional(),
    baseURL: z
      .string()
      .refine(isHttpUrl, 'must be an absolute http: or https: URL')
      // the messages never repeat the value: it may hold the secret
      .refine(
        (url) => !urlHasCredentials(url),
        'must not contain credentials (user:password@); give the key through apiKeyEnv',
      )
      .refine((url) => !hasQuery(url), 'must not carry a query string; give the key through apiKeyEnv')
      .optional(),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    models: z.array(ModelEntrySchema).optional(),
    timeoutMs: intInRange(1, MAX_TIMER_MS, 120_000),
    maxRetries: intInRange(0, 10, 2),
    maxRetryDelayMs: intInRange(0, MAX_TIMER_MS, 60_000),
    streamIdleTimeoutMs: intInRange(1, MAX_TIMER_MS, 300_000),
    streamDataTimeoutMs: intInRange(1, MAX_TIMER_MS, 600_000),
    streamTotalTimeoutMs: intInRange(1, MAX_TIMER_MS, 30 * 60_000),
    maxResponseBytes: intInRange(1024, Number.MAX_SAFE_INTEGER, 64 * 1024 * 1024),
    maxLineBytes: intInRange(64, MAX_LINE_BYTES, 8 * 1024 * 1024),
    cachePolicy: CachePolicySchema.default('bridle'),
    cacheTtl: z.enum(['5m', '1h']).default('1h'),
    headers: z
      .record(z.string(), z.string())
      .superRefine((headers, ctx) => {
        for (const name of Object.keys(headers)) {
          if (FORBIDDEN_HEADERS.includes(name.toLowerCase())) {
            ctx.addIssue({ code: 'custom', path: [name], message: `header "${name}" is set by the adapter` })
          }
        }
      })
      .default({}),
    extraBody: extraBodySchema.default({}),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.baseURL !== undefined && config.apiKeyEnv === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['apiKeyEnv'],
        message: 'required when baseURL is given (the environment variable that holds the key for that server)',
      })
    }
    const ids = new Set<string>()
    config.models?.forEach((model, i) => {
      if (ids.has(model.id)) {
        ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: `duplicate model id "${model.id}"` })
      }
      ids.add(model.id)
    })
  })

/** The raw config a user writes. */
export type AnthropicConfigInput = z.input<typeof ConfigSchema>

/** The resolved, frozen config the adapter reads. */
export interface AnthropicConfig {
  readonly provider: string
  readonly displayName: string
  readonly baseURL: string
  readonly apiKeyEnv: string
  readonly models: readonly ModelEntry[]
  /** Connect plus response headers, per attempt. */
  readonly timeoutMs: number
  readonly maxRetries: number
  readonly maxRetryDelayMs: number
  /** Longest silence while reading the body; any byte (a `ping` too) re-arms it. */
  readonly streamIdleTimeoutMs: number
  /** Longest wait for an event that carries content; `ping` and empty events do not re-arm it. */
  readonly streamDataTimeoutMs: number
  /** Longest a whole response may take, from the request to `message_stop`. */
  readonly streamTotalTimeoutMs: number
  /** Most bytes one streamed response may carry. */
  readonly maxResponseBytes: number
  /** Longest SSE line, and longest event, in bytes. */
  readonly maxLineBytes: number
  readonly cachePolicy: z.output<typeof CachePolicySchema>
  /** TTL of the breakpoints on stable parts (tools, system); the moving message breakpoints always use 5m. */
  readonly cacheTtl: '5m' | '1h'
  readonly headers: Readonly<Record<string, string>>
  readonly extraBody: Readonly<Record<string, JsonValue>>
}

const BUDGETS = { low: 4096, medium: 16_384, high: 32_000 }

/** The Claude catalog used when `models` is omitted (figures dated in the README). */
export const ANTHROPIC_MODELS: readonly ModelEntry[] = deepFreeze([
  {
    id: 'claude-opus-4-5',
    name: 'Claude Opus 4.5',
    contextWindow: 200_000,
    defaultMaxTokens: 64_000,
    minCacheableTokens: 4096,
    thinking: { mode: 'budget', budgets: BUDGETS },
  },
  {
    id: 'claude-sonnet-4-5',
    name: 'Claude Sonnet 4.5',
    contextWindow: 200_000,
    defaultMaxTokens: 64_000,
    minCacheableTokens: 1024,
    thinking: { mode: 'budget', budgets: BUDGETS },
  },
  {
    id: 'claude-haiku-4-5',
    name: 'Claude Haiku 4.5',
    contextWindow: 200_000,
    defaultMaxTokens: 64_000,
    minCacheableTokens: 4096,
    thinking: { mode: 'budget', budgets: BUDGETS },
  },
  {
    id: 'claude-opus-4-1',
    name: 'Claude Opus 4.1',
    contextWindow: 200_000,
    defaultMaxTokens: 32_000,
    minCacheableTokens: 1024,
    thinking: { mode: 'budget', budgets: { low: 4096, medium: 16_384, high: 24_000 } },
  },
  {
    id: 'claude-sonnet-4-0',
    name: 'Claude Sonnet 4',
    contextWindow: 200_000,
    defaultMaxTokens: 64_000,
    minCacheableTokens: 1024,
    thinking: { mode: 'budget', budgets: BUDGETS },
  },
])

/**
 * Parses a raw config and applies the defaults (Anthropic URL, `ANTHROPIC_API_KEY`, the Claude catalog). Pure.
 * Throws `ConfigError` naming the plugin and each failing field. The result is deep-frozen.
 */
export function resolveConfig(raw: unknown): AnthropicConfig {
  const c = parseConfig('llm-anthropic', ConfigSchema, raw)
  return deepFreeze({
    provider: c.provider,
    displayName: c.displayName ?? (c.baseURL === undefined ? 'Anthropic' : c.provider),
    baseURL: c.baseURL ?? ANTHROPIC_BASE_URL,
    apiKeyEnv: c.apiKeyEnv ?? 'ANTHROPIC_API_KEY',
    models: c.models ?? structuredClone(ANTHROPIC_MODELS),
    timeoutMs: c.timeoutMs,
    maxRetries: c.maxRetries,
    maxRetryDelayMs: c.maxRetryDelayMs,
    streamIdleTimeoutMs: c.streamIdleTimeoutMs,
    streamDataTimeoutMs: c.streamDataTimeoutMs,
    streamTotalTimeoutMs: c.streamTotalTimeoutMs,
    maxResponseBytes: c.maxResponseBytes,
    maxLineBytes: c.maxLineBytes,
    cachePolicy: c.cachePolicy,
    cacheTtl: c.cacheTtl,
    headers: c.headers,
    extraBody: c.extraBody as Record<string, JsonValue>,
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
