/**
 * Wire usage → neutral `TokenUsage`. Input counts are made disjoint: cached prompt
 * tokens (DeepSeek `prompt_cache_hit_tokens`, OpenAI/vLLM `prompt_tokens_details.cached_tokens`)
 * become `cacheReadTokens` and are subtracted from `prompt_tokens`.
 */
import type { TokenUsage } from '@bridle/llm'

/** Maps one wire `usage` object. A field that is not a finite non-negative number counts as not reported. */
export function translateUsage(wire: Record<string, unknown>): TokenUsage {
  const prompt = count(wire.prompt_tokens) ?? 0
  const output = count(wire.completion_tokens) ?? 0
  const cached = count(wire.prompt_cache_hit_tokens) ?? count(field(wire.prompt_tokens_details, 'cached_tokens'))
  const reasoning = count(field(wire.completion_tokens_details, 'reasoning_tokens'))
  const usage: { -readonly [K in keyof TokenUsage]: TokenUsage[K] } = {
    inputTokens: Math.max(0, prompt - (cached ?? 0)),
    outputTokens: output,
  }
  if (cached !== undefined) usage.cacheReadTokens = cached
  if (reasoning !== undefined) usage.reasoningTokens = reasoning
  return usage
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined
}
