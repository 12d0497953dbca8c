/**
 * Wire usage → neutral `TokenUsage`. Input counts are made disjoint: cached prompt
 * tokens (DeepSeek `prompt_cache_hit_tokens`, OpenAI/vLLM `prompt_tokens_details.cached_tokens`)
 * become `cacheReadTokens` and are subtracted from `prompt_tokens`.
 */
import type { TokenUsage } from '@bridle/llm'

/**
 * Maps one wire `usage` object. A field that is not a finite non-negative number counts as not reported. Reasoning is
 * a part of output (`reasoningTokens ≤ outputTokens`); a provider that counts it outside `completion_tokens` (xAI,
 * OpenRouter) has it added to the output (`reasoningOutside`).
 */
export function translateUsage(wire: Record<string, unknown>): TokenUsage {
  const prompt = count(wire.prompt_tokens) ?? 0
  const completion = count(wire.completion_tokens) ?? 0
  const cached = count(wire.prompt_cache_hit_tokens) ?? count(field(wire.prompt_tokens_details, 'cached_tokens'))
  const reasoning = count(field(wire.completion_tokens_details, 'reasoning_tokens'))
  const output = reasoningOutside(wire, prompt, completion, reasoning) ? completion + reasoning! : completion
  const usage: { -readonly [K in keyof TokenUsage]: TokenUsage[K] } = {
    inputTokens: Math.max(0, prompt - (cached ?? 0)),
    outputTokens: output,
  }
  if (cached !== undefined) usage.cacheReadTokens = cached
  if (reasoning !== undefined) usage.reasoningTokens = reasoning
  return usage
}

/**
 * True when the reported reasoning tokens are not inside `completion_tokens`: `total_tokens` equals prompt +
 * completion + reasoning (and so not prompt + completion), or, without a total, reasoning exceeds completion.
 */
function reasoningOutside(
  wire: Record<string, unknown>,
  prompt: number,
  completion: number,
  reasoning: number | undefined,
): boolean {
  if (reasoning === undefined || reasoning === 0) return false
  const total = count(wire.total_tokens)
  if (total !== undefined && total === prompt + completion + reasoning) return true
  return reasoning > completion
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined
}
