/**
 * Wire usage → neutral `TokenUsage` (README.md#usage). Anthropic's `input_tokens` already excludes cached input, so
 * its figures are disjoint as `TokenUsage` wants them: `input_tokens` → `inputTokens`, `cache_read_input_tokens` →
 * `cacheReadTokens`, `cache_creation_input_tokens` → `cacheWriteTokens`; `billedInputTokens` (`@bridle/llm`) adds
 * the three into the normalized total.
 */
import type { TokenUsage } from '@bridle/llm'

/**
 * Folds a later usage object over an earlier one: `message_start` reports input and cache figures, `message_delta`
 * the cumulative output (and, on newer API versions, input figures again). A reported number wins over a missing
 * or `null` one.
 */
export function mergeUsage(
  earlier: Record<string, unknown> | undefined,
  later: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...earlier }
  for (const [key, value] of Object.entries(later)) if (value !== null && value !== undefined) out[key] = value
  return out
}

/** Maps one merged wire `usage` object. A field that is not a finite non-negative number counts as not reported. */
export function translateUsage(wire: Record<string, unknown>): TokenUsage {
  const usage: { -readonly [K in keyof TokenUsage]: TokenUsage[K] } = {
    inputTokens: count(wire.input_tokens) ?? 0,
    outputTokens: count(wire.output_tokens) ?? 0,
  }
  const read = count(wire.cache_read_input_tokens)
  const write = count(wire.cache_creation_input_tokens)
  const details = wire.output_tokens_details
  const thinking = count(
    details !== null && typeof details === 'object' ? (details as Record<string, unknown>).thinking_tokens : undefined,
  )
  if (read !== undefined) usage.cacheReadTokens = read
  if (write !== undefined) usage.cacheWriteTokens = write
  if (thinking !== undefined) usage.reasoningTokens = thinking
  return usage
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined
}
