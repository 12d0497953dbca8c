/**
 * Configuration of one `llm-openai` route: the zod schema, the DeepSeek defaults, and
 * `resolveConfig`, the pure parse-plus-defaults step that `Config` (the cordis hook) runs.
 */
import { deepFreeze } from '@bridle/llm'
import * as kit from '@bridle/llm/adapter-kit'
import { z } from 'zod'

/** Base URL used when `baseURL` is omitted. The SDK appends `/chat/completions`. */
export const DEEPSEEK_BASE_URL = 'https://api.deepseek.com'

/** Body keys the adapter owns; `extraBody` may not set them. */
export const RESERVED_BODY_KEYS = kit.routeBodyKeys(
  'stream_options',
  'stop',
  'max_completion_tokens',
  'reasoning_effort',
)

/** Header names the adapter owns (`authorization`, `user-agent`, `accept`, `content-type`); `headers` may not set them. */
export const FORBIDDEN_HEADERS = kit.routeHeaders()

/** One catalog row: a model id with its context window and optional defaults. */
export const ModelEntrySchema = kit
  .catalogModel(RESERVED_BODY_KEYS, {
    reasoningEfforts: z.array(kit.nonEmptyString).min(1, 'must list at least one effort').optional(),
    defaultReasoningEffort: kit.nonEmptyString.optional(),
  })
  .superRefine((entry, ctx) => {
    const efforts = entry.reasoningEfforts ?? []
    const seen = new Set<string>()
    efforts.forEach((effort, i) => {
      if (seen.has(effort)) {
        ctx.addIssue({ code: 'custom', path: ['reasoningEfforts', i], message: `duplicate effort "${effort}"` })
      }
      seen.add(effort)
    })
    if (entry.defaultReasoningEffort !== undefined && !seen.has(entry.defaultReasoningEffort)) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaultReasoningEffort'],
        message: `"${entry.defaultReasoningEffort}" is not listed in reasoningEfforts`,
      })
    }
  })

export type ModelEntry = Readonly<z.output<typeof ModelEntrySchema>>

/** The strict schema of the plugin config (before the DeepSeek-dependent defaults). */
export const ConfigSchema = kit.routeSchema(
  {
    provider: 'deepseek',
    query: 'no-credentials',
    apiKeyEnv: 'name-or-null',
    apiKeyHint: 'an environment variable name, or null for a keyless server',
    model: ModelEntrySchema,
    forbiddenHeaders: FORBIDDEN_HEADERS,
    reservedBodyKeys: RESERVED_BODY_KEYS,
  },
  {
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).default('max_tokens'),
    reasoningReplay: z.enum(['tool-turns', 'never']).default('tool-turns'),
    includeUsage: z.boolean().default(true),
  },
)

/** The raw config a user writes. */
export type OpenAICompatConfigInput = z.input<typeof ConfigSchema>

/** The resolved, frozen config the adapter reads. */
export interface OpenAICompatConfig extends kit.ResolvedRoute<string | null, ModelEntry> {
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens'
  readonly reasoningReplay: 'tool-turns' | 'never'
  readonly includeUsage: boolean
}

/** The DeepSeek catalog used when `baseURL` is omitted. */
export const DEEPSEEK_MODELS: readonly ModelEntry[] = deepFreeze([
  { id: 'deepseek-chat', name: 'DeepSeek Chat', contextWindow: 131_072, defaultMaxTokens: 8192 },
  { id: 'deepseek-reasoner', name: 'DeepSeek Reasoner', contextWindow: 131_072, defaultMaxTokens: 32_768 },
])

/** Where the route calls when its config names no `baseURL`: DeepSeek, with `DEEPSEEK_API_KEY` and its catalog. */
const DEEPSEEK_HOME: kit.HomeRoute<string | null, ModelEntry> = {
  displayName: 'DeepSeek',
  baseURL: DEEPSEEK_BASE_URL,
  apiKeyEnv: 'DEEPSEEK_API_KEY',
  models: DEEPSEEK_MODELS,
}

/**
 * Parses a raw config and applies the defaults that depend on whether `baseURL` was given
 * (DeepSeek URL, `DEEPSEEK_API_KEY`, DeepSeek catalog). Pure. Throws `ConfigError` naming the
 * plugin and each failing field. The result is deep-frozen.
 */
export function resolveConfig(raw: unknown): OpenAICompatConfig {
  return kit.parseRoute('llm-openai', ConfigSchema, raw, DEEPSEEK_HOME, (c) => ({
    maxTokensField: c.maxTokensField,
    reasoningReplay: c.reasoningReplay,
    includeUsage: c.includeUsage,
  }))
}
