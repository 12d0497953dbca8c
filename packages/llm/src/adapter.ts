/**
 * The adapter interface: what a provider integration implements, plus the model metadata and retry-policy
 * data it may report. The seam never retries; the policy is data for `agent/request-error` listeners.
 */
import type { CachePlan, CachePlanInput } from './cache.js'
import type { ReasoningEffortId } from './ids.js'
import type { GenerateOptions } from './request.js'
import type { StreamChunk } from './stream.js'

/** A display identity for a route. `id` must equal the route name. */
export interface LlmProviderInfo {
  id: string
  name: string
}

export interface LlmReasoningEffortInfo {
  id: ReasoningEffortId
  name: string
  description?: string
}

/** Adapter-reported metadata about one model on one route. */
export interface LlmModelInfo {
  provider: string
  id: string
  name: string
  description?: string
  context?: { contextWindow: number }
  defaultMaxTokens?: number
  reasoning?: {
    efforts: readonly LlmReasoningEffortInfo[]
    defaultEffort?: ReasoningEffortId
  }
}

/** Retry-policy data handed to request-error listeners. */
export interface LlmRetryPolicy {
  mode: 'normal'
  maxRetries: number
  retryableCodes: readonly string[]
  initialDelayMs: number
  maxDelayMs: number
  jitterRatio: number
}

/**
 * A provider integration. Only `stream` is required; one `stream()` call is one logical provider attempt
 * and must follow the stream grammar (see `streamGrammarViolations`).
 */
export interface LlmAdapter {
  stream(options: GenerateOptions): AsyncIterable<StreamChunk>
  /** Default `{id: provider, name: provider}`. */
  providerInfo?(provider: string): LlmProviderInfo
  /** Default `[]`. */
  listModels?(provider: string): readonly LlmModelInfo[] | Promise<readonly LlmModelInfo[]>
  /** Default `{provider, id: model, name: model}`. */
  resolveModel?(provider: string, model: string, signal?: AbortSignal): LlmModelInfo | Promise<LlmModelInfo>
  /** Merged over `DEFAULT_RETRY_POLICY`, then validated. */
  retryPolicy?(provider: string): Partial<LlmRetryPolicy> | undefined
  /**
   * Places prompt-cache breakpoints for a request about to be built (docs/caching.md). Only adapters of providers
   * that cache at explicit breakpoints implement it; it must be synchronous and pure (no I/O).
   */
  planCache?(input: CachePlanInput): CachePlan | undefined
}

/** The default retry policy. */
export const DEFAULT_RETRY_POLICY: LlmRetryPolicy = Object.freeze({
  mode: 'normal',
  maxRetries: 2,
  retryableCodes: Object.freeze(['EMPTY_RESPONSE', 'RATE_LIMIT', 'SERVER', 'TIMEOUT', 'TRANSPORT']),
  initialDelayMs: 500,
  maxDelayMs: 10000,
  jitterRatio: 0.1,
})

const POLICY_KEYS = new Set(Object.keys(DEFAULT_RETRY_POLICY))

/**
 * Validates a complete retry policy and returns a frozen copy. Throws `TypeError` naming the field on
 * unknown keys, a mode other than `normal`, a negative or fractional `maxRetries`, non-positive delays,
 * `initialDelayMs > maxDelayMs`, `jitterRatio` outside [0, 1], or empty/duplicate/ill-formed codes.
 */
export function validateRetryPolicy(policy: unknown): LlmRetryPolicy {
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy))
    throw new TypeError('retry policy must be an object')
  const p = policy as Record<string, unknown>
  for (const key of Object.keys(p)) {
    if (!POLICY_KEYS.has(key)) throw new TypeError(`retry policy has unknown key "${key}"`)
  }
  if (p.mode !== 'normal') throw new TypeError(`retry policy mode must be "normal" (got ${JSON.stringify(p.mode)})`)
  if (typeof p.maxRetries !== 'number' || !Number.isSafeInteger(p.maxRetries) || p.maxRetries < 0)
    throw new TypeError('retry policy maxRetries must be a non-negative integer')
  for (const key of ['initialDelayMs', 'maxDelayMs'] as const) {
    const value = p[key]
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      throw new TypeError(`retry policy ${key} must be a positive number`)
  }
  if ((p.initialDelayMs as number) > (p.maxDelayMs as number))
    throw new TypeError('retry policy initialDelayMs must not exceed maxDelayMs')
  if (typeof p.jitterRatio !== 'number' || !(p.jitterRatio >= 0 && p.jitterRatio <= 1))
    throw new TypeError('retry policy jitterRatio must be within [0, 1]')
  const codes = p.retryableCodes
  if (!Array.isArray(codes)) throw new TypeError('retry policy retryableCodes must be an array of codes')
  if (codes.length === 0) throw new TypeError('retry policy retryableCodes must not be empty')
  const seen = new Set<string>()
  for (const code of codes) {
    if (typeof code !== 'string' || code === '')
      throw new TypeError('retry policy retryableCodes must not contain empty codes')
    if (seen.has(code)) throw new TypeError(`retry policy retryableCodes lists "${code}" twice`)
    seen.add(code)
  }
  return Object.freeze({
    mode: 'normal',
    maxRetries: p.maxRetries,
    retryableCodes: Object.freeze([...seen]),
    initialDelayMs: p.initialDelayMs as number,
    maxDelayMs: p.maxDelayMs as number,
    jitterRatio: p.jitterRatio,
  })
}

/** Merges an adapter's partial policy over the default and validates the result (throws `TypeError`). */
export function mergeRetryPolicy(partial: Partial<LlmRetryPolicy> | undefined): LlmRetryPolicy {
  if (partial === undefined) return DEFAULT_RETRY_POLICY
  if (typeof partial !== 'object' || partial === null) throw new TypeError('retry policy must be an object')
  return validateRetryPolicy({ ...DEFAULT_RETRY_POLICY, ...partial })
}
