/**
 * Configuration of one `llm-anthropic` route: the zod schema, the Claude catalog, and `resolveConfig`, the pure
 * parse-plus-defaults step that `Config` (the cordis hook) runs. The figures of the catalog are listed with their
 * date in this package's README ("Figures this package relies on").
 */
import { deepFreeze } from '@bridle/llm'
import * as kit from '@bridle/llm/adapter-kit'
import { z } from 'zod'

/** Base URL used when `baseURL` is omitted. The SDK appends `/v1/messages`. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com'

/** Body keys the adapter owns; `extraBody` may not set them. */
export const RESERVED_BODY_KEYS = kit.routeBodyKeys(
  'system',
  'stop_sequences',
  'thinking',
  'output_config',
  'cache_control',
)

/** Header names the adapter owns; `headers` may not set them. */
export const FORBIDDEN_HEADERS = kit.routeHeaders('x-api-key', 'anthropic-version')

/** Max output tokens when neither the caller nor the catalog says: the Messages API requires `max_tokens`. */
export const FALLBACK_MAX_TOKENS = 4096
/** Minimum cacheable prefix assumed for a model the catalog does not list: the largest documented one. */
export const FALLBACK_MIN_CACHEABLE_TOKENS = 4096

/**
 * How a model thinks when a reasoning effort is requested: `budget` sends `thinking: {type: 'enabled',
 * budget_tokens}` with the effort's budget; `adaptive` sends `thinking: {type: 'adaptive'}` and
 * `output_config: {effort}`.
 */
const ThinkingSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('budget'), budgets: z.record(kit.nonEmptyString, z.number().int().min(1024)) }).strict(),
  z
    .object({ mode: z.literal('adaptive'), efforts: z.array(kit.nonEmptyString).min(1, 'must list an effort') })
    .strict(),
])

/** One catalog row: a model id with its context window, output limit, cache minimum and thinking mode. */
export const ModelEntrySchema = kit
  .catalogModel(RESERVED_BODY_KEYS, {
    /** Shortest prefix (in tokens) the API caches for this model; a shorter breakpoint is ignored by the API. */
    minCacheableTokens: z.number().int().positive().optional(),
    thinking: ThinkingSchema.optional(),
    defaultReasoningEffort: kit.nonEmptyString.optional(),
  })
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
export const ConfigSchema = kit.routeSchema(
  {
    provider: 'anthropic',
    query: 'none',
    apiKeyEnv: 'name',
    apiKeyHint: 'the environment variable that holds the key for that server',
    model: ModelEntrySchema,
    forbiddenHeaders: FORBIDDEN_HEADERS,
    reservedBodyKeys: RESERVED_BODY_KEYS,
  },
  { cachePolicy: CachePolicySchema.default('bridle'), cacheTtl: z.enum(['5m', '1h']).default('1h') },
)

/** The raw config a user writes. */
export type AnthropicConfigInput = z.input<typeof ConfigSchema>

/** The resolved, frozen config the adapter reads. */
export interface AnthropicConfig extends kit.ResolvedRoute<string, ModelEntry> {
  readonly cachePolicy: z.output<typeof CachePolicySchema>
  /** TTL of the breakpoints on stable parts (tools, system); the moving message breakpoints always use 5m. */
  readonly cacheTtl: '5m' | '1h'
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

/** The route's defaults: the Anthropic API, `ANTHROPIC_API_KEY`, and the Claude catalog wherever it calls. */
const ANTHROPIC_HOME: kit.HomeRoute<string, ModelEntry> = {
  displayName: 'Anthropic',
  baseURL: ANTHROPIC_BASE_URL,
  apiKeyEnv: 'ANTHROPIC_API_KEY',
  models: ANTHROPIC_MODELS,
  modelsElsewhere: ANTHROPIC_MODELS,
}

/**
 * Parses a raw config and applies the defaults (Anthropic URL, `ANTHROPIC_API_KEY`, the Claude catalog). Pure.
 * Throws `ConfigError` naming the plugin and each failing field. The result is deep-frozen.
 */
export function resolveConfig(raw: unknown): AnthropicConfig {
  return kit.parseRoute('llm-anthropic', ConfigSchema, raw, ANTHROPIC_HOME, (c) => ({
    cachePolicy: c.cachePolicy,
    cacheTtl: c.cacheTtl,
  }))
}
