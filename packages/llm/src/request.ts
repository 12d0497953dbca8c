/**
 * Request vocabulary: tool schemas, one fully assembled model request (`GenerateOptions`) and the
 * per-conversation call config.
 */
import type { Brand, ReasoningEffortId } from './ids.js'
import type { CachePlan } from './cache.js'
import type { Message } from './message.js'

/** A session id, declared locally so the seam does not depend on `@bridle/session`. */
export type SessionId = Brand<'SessionId'>

/**
 * One tool as the model sees it. `parameters` is a JSON Schema object (`type: 'object'` at the top). The
 * seam neither validates nor reorders tools: array order is the canonical order adapters send.
 */
export interface ToolSchema {
  name: string
  description: string
  parameters: Record<string, unknown>
}

/** Auxiliary-call hint; unset for conversation turns. */
export type LlmPurpose = 'compaction' | 'session-title'

/** One fully assembled model request. The system prompt travels in `system`, never in `messages`. */
export interface GenerateOptions {
  /** Registered route name; selects the adapter. */
  provider: string
  /** Adapter-owned model id, passed through. */
  model: string
  reasoningEffort?: ReasoningEffortId
  messages: readonly Message[]
  system?: string
  /** Canonical order, decided upstream. */
  tools?: readonly ToolSchema[]
  temperature?: number
  maxTokens?: number
  stop?: readonly string[]
  /** Adapters must honour it. */
  signal?: AbortSignal
  sessionId?: SessionId
  purpose?: LlmPurpose
  /**
   * Prompt-cache breakpoints the loop asked the route's adapter to place (docs/caching.md); recorded in the log
   * and covered by the request digest. Adapters of automatically caching providers ignore it.
   */
  cache?: CachePlan
}

/** The per-conversation subset of `GenerateOptions`, field for field. */
export interface LlmCallConfig {
  provider: string
  model: string
  reasoningEffort?: ReasoningEffortId
  temperature?: number
  maxTokens?: number
  stop?: readonly string[]
}

/** Flags the config fields the adapter (model defaults), not the caller, supplied. */
export interface LlmCallConfigAdapterDefaults {
  reasoningEffort?: true
  maxTokens?: true
}

/** The six config keys, in canonical order. */
export const CALL_CONFIG_KEYS = Object.freeze([
  'provider',
  'model',
  'reasoningEffort',
  'temperature',
  'maxTokens',
  'stop',
] as const)

/** Picks the six call-config fields from a request or config, omitting undefined ones. Returns a new object. */
export function callConfigOf(options: LlmCallConfig | GenerateOptions): LlmCallConfig {
  const config: Record<string, unknown> = {}
  for (const key of CALL_CONFIG_KEYS) {
    const value = options[key]
    if (value !== undefined) config[key] = value
  }
  return config as unknown as LlmCallConfig
}

/**
 * Field-wise equality of two call configs, the one comparison every package uses (the request a dispatch sends, the
 * `request/header` change rule, the dispatch-time verification): scalars with `===`, `stop` element-wise (order and
 * length matter); `undefined` equals only `undefined`, so an absent `stop` differs from `[]`.
 */
export function callConfigEquals(a: LlmCallConfig, b: LlmCallConfig): boolean {
  if (
    a.provider !== b.provider ||
    a.model !== b.model ||
    a.reasoningEffort !== b.reasoningEffort ||
    a.temperature !== b.temperature ||
    a.maxTokens !== b.maxTokens
  ) {
    return false
  }
  const sa = a.stop
  const sb = b.stop
  if (sa === undefined || sb === undefined) return sa === sb
  if (!Array.isArray(sa) || !Array.isArray(sb) || sa.length !== sb.length) return false
  return sa.every((value, i) => value === sb[i])
}
