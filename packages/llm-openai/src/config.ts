/**
 * Configuration of one `llm-openai` route: the zod schema, the DeepSeek defaults, and
 * `resolveConfig`, the pure parse-plus-defaults step that `Config` (the cordis hook) runs.
 */
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_STREAM_TOTAL_TIMEOUT_MS,
  deepFreeze,
  parseConfig,
  urlCredentials,
  type JsonValue,
} from '@bridle/llm'
import { z } from 'zod'

/** Base URL used when `baseURL` is omitted. The SDK appends `/chat/completions`. */
export const DEEPSEEK_BASE_URL = 'https://api.deepseek.com'

/** Body keys the adapter owns; `extraBody` may not set them. */
export const RESERVED_BODY_KEYS: readonly string[] = Object.freeze([
  'model',
  'messages',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'temperature',
  'stop',
  'max_tokens',
  'max_completion_tokens',
  'reasoning_effort',
])

/** Header names the adapter owns; `headers` may not set them. */
export const FORBIDDEN_HEADERS: readonly string[] = Object.freeze([
  'authorization',
  'user-agent',
  'accept',
  'content-type',
])

const MAX_TIMER_MS = 2_147_483_647
const MAX_LINE_BYTES = 1024 * 1024 * 1024

const extraBodySchema = z.record(z.string(), z.json()).superRefine((body, ctx) => {
  for (const key of Object.keys(body)) {
    if (RESERVED_BODY_KEYS.includes(key)) {
      ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is set by the adapter and may not be overridden` })
    }
  }
})

const nonEmptyString = z.string().min(1, 'must be a non-empty string')

/** One catalog row: a model id with its context window and optional defaults. */
export const ModelEntrySchema = z
  .object({
    id: nonEmptyString,
    name: nonEmptyString.optional(),
    description: z.string().optional(),
    contextWindow: z.number().int().positive(),
    defaultMaxTokens: z.number().int().positive().optional(),
    reasoningEfforts: z.array(nonEmptyString).min(1, 'must list at least one effort').optional(),
    defaultReasoningEffort: nonEmptyString.optional(),
    extraBody: extraBodySchema.optional(),
  })
  .strict()
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
export const ConfigSchema = z
  .object({
    provider: z
      .string()
      .min(1, 'must be a non-empty string')
      .max(64, 'must be at most 64 characters')
      .regex(/^\S+$/, 'must not contain whitespace')
      .default('deepseek'),
    displayName: nonEmptyString.optional(),
    baseURL: z
      .string()
      .refine(isHttpUrl, 'must be an absolute http: or https: URL')
      // the messages never repeat the value: it holds the secret
      .superRefine((url, ctx) => {
        const problem = baseUrlCredentialProblem(url)
        if (problem !== undefined)
          ctx.addIssue({ code: 'custom', message: `${problem}; give the key through apiKeyEnv` })
      })
      .optional(),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .nullable()
      .optional(),
    models: z.array(ModelEntrySchema).optional(),
    timeoutMs: z.number().int().min(1).max(MAX_TIMER_MS).default(120_000),
    maxRetries: z.number().int().min(0).max(10).default(2),
    streamIdleTimeoutMs: z.number().int().min(1).max(MAX_TIMER_MS).default(300_000),
    streamDataTimeoutMs: z.number().int().min(1).max(MAX_TIMER_MS).default(600_000),
    streamTotalTimeoutMs: z.number().int().min(1).max(MAX_TIMER_MS).default(DEFAULT_STREAM_TOTAL_TIMEOUT_MS),
    maxResponseBytes: z.number().int().min(1024).max(Number.MAX_SAFE_INTEGER).default(DEFAULT_MAX_RESPONSE_BYTES),
    maxRetryDelayMs: z.number().int().min(0).max(MAX_TIMER_MS).default(60_000),
    maxLineBytes: z
      .number()
      .int()
      .min(64)
      .max(MAX_LINE_BYTES)
      .default(8 * 1024 * 1024),
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).default('max_tokens'),
    reasoningReplay: z.enum(['tool-turns', 'never']).default('tool-turns'),
    includeUsage: z.boolean().default(true),
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
        message: 'required when baseURL is given (an environment variable name, or null for a keyless server)',
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
export type OpenAICompatConfigInput = z.input<typeof ConfigSchema>

/** The resolved, frozen config the adapter reads. */
export interface OpenAICompatConfig {
  readonly provider: string
  readonly displayName: string
  readonly baseURL: string
  readonly apiKeyEnv: string | null
  readonly models: readonly ModelEntry[]
  readonly timeoutMs: number
  readonly maxRetries: number
  readonly streamIdleTimeoutMs: number
  /** Longest wait for progress (a token, a finish reason); keep-alive comments and empty events do not count. */
  readonly streamDataTimeoutMs: number
  /** Longest a whole call may take, from the request to the last byte. */
  readonly streamTotalTimeoutMs: number
  /** Most bytes one response's event stream may carry. */
  readonly maxResponseBytes: number
  /** Longest wait between two attempts; a server asking for more ends the retries. */
  readonly maxRetryDelayMs: number
  /** Longest SSE line, and longest event (its non-comment lines together), in bytes. */
  readonly maxLineBytes: number
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens'
  readonly reasoningReplay: 'tool-turns' | 'never'
  readonly includeUsage: boolean
  readonly headers: Readonly<Record<string, string>>
  readonly extraBody: Readonly<Record<string, JsonValue>>
}

/** The DeepSeek catalog used when `baseURL` is omitted. */
export const DEEPSEEK_MODELS: readonly ModelEntry[] = deepFreeze([
  { id: 'deepseek-chat', name: 'DeepSeek Chat', contextWindow: 131_072, defaultMaxTokens: 8192 },
  { id: 'deepseek-reasoner', name: 'DeepSeek Reasoner', contextWindow: 131_072, defaultMaxTokens: 32_768 },
])

/**
 * Parses a raw config and applies the defaults that depend on whether `baseURL` was given
 * (DeepSeek URL, `DEEPSEEK_API_KEY`, DeepSeek catalog). Pure. Throws `ConfigError` naming the
 * plugin and each failing field. The result is deep-frozen.
 */
export function resolveConfig(raw: unknown): OpenAICompatConfig {
  const c = parseConfig('llm-openai', ConfigSchema, raw)
  const deepseek = c.baseURL === undefined
  return deepFreeze({
    provider: c.provider,
    displayName: c.displayName ?? (deepseek ? 'DeepSeek' : c.provider),
    baseURL: c.baseURL ?? DEEPSEEK_BASE_URL,
    apiKeyEnv: c.apiKeyEnv === undefined ? 'DEEPSEEK_API_KEY' : c.apiKeyEnv,
    models: c.models ?? (deepseek ? structuredClone(DEEPSEEK_MODELS) : []),
    timeoutMs: c.timeoutMs,
    maxRetries: c.maxRetries,
    streamIdleTimeoutMs: c.streamIdleTimeoutMs,
    streamDataTimeoutMs: c.streamDataTimeoutMs,
    streamTotalTimeoutMs: c.streamTotalTimeoutMs,
    maxResponseBytes: c.maxResponseBytes,
    maxRetryDelayMs: c.maxRetryDelayMs,
    maxLineBytes: c.maxLineBytes,
    maxTokensField: c.maxTokensField,
    reasoningReplay: c.reasoningReplay,
    includeUsage: c.includeUsage,
    headers: c.headers,
    extraBody: c.extraBody as Record<string, JsonValue>,
  })
}

/**
 * Why a base URL may not be used as given (docs/security.md#urls), or undefined: userinfo, or a query parameter whose
 * name marks a credential (`api-key`, `token`, `sig`, …; `api-version` is fine). Names the parameter, never a value.
 */
export function baseUrlCredentialProblem(url: string): string | undefined {
  const found = urlCredentials(url)
  if (found.userinfo) return 'must not contain credentials (user:password@)'
  if (found.parameters.length === 0) return undefined
  const names = found.parameters.map((name) => `"${name}"`).join(', ')
  return `must not carry a credential in its query string (parameter ${names})`
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}
