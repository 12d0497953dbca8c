/**
 * Canned, deterministic DeepSeek-shaped `chat.completion.chunk` payloads for mock-server scripts.
 * Pure functions: the same input always yields the same items (fixed id, created and model).
 */
import type { SseItem } from './mock-server.js'

/** The stream terminator. */
export const DONE = '[DONE]'
/** An SSE comment line, as DeepSeek sends while a request is queued. */
export const KEEPALIVE: SseItem = { raw: ': keep-alive\n\n' }

/** Wire usage object as the providers send it. */
export interface WireUsage {
  prompt_tokens?: number
  completion_tokens?: number
  total_tokens?: number
  prompt_cache_hit_tokens?: number
  prompt_cache_miss_tokens?: number
  prompt_tokens_details?: { cached_tokens?: number }
  completion_tokens_details?: { reasoning_tokens?: number }
}

export interface FinishOptions {
  finishReason?: string
  usage?: WireUsage
}

const DEFAULT_USAGE: WireUsage = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }

/** The fields every canned `chat.completion.chunk` shares, in wire order, before `choices`. */
const ENVELOPE = {
  id: 'chatcmpl-mock-0001',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'deepseek-chat',
  system_fingerprint: 'fp_mock',
} as const

/** One `chat.completion.chunk` with a single choice. */
export function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  usage?: WireUsage,
): Record<string, unknown> {
  return {
    ...ENVELOPE,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(usage === undefined ? {} : { usage }),
  }
}

/** A trailing usage-only chunk (`choices: []`), as OpenAI sends with `include_usage`. */
export function usageOnlyChunk(usage: WireUsage): Record<string, unknown> {
  return { ...ENVELOPE, choices: [], usage }
}

/** Role chunk, one chunk per text fragment, a finish chunk with usage, `[DONE]`. */
export function textEvents(fragments: readonly string[], options: FinishOptions = {}): SseItem[] {
  return [
    chunk({ role: 'assistant', content: '' }),
    ...fragments.map((content) => chunk({ content })),
    chunk({ content: '' }, options.finishReason ?? 'stop', options.usage ?? DEFAULT_USAGE),
    DONE,
  ]
}

/** `deepseek-reasoner` shape: reasoning fragments in `reasoning_content`, then text fragments. */
export function reasoningEvents(
  reasoning: string | readonly string[],
  text: string | readonly string[],
  options: FinishOptions = {},
): SseItem[] {
  const thoughts = typeof reasoning === 'string' ? [reasoning] : reasoning
  const answer = typeof text === 'string' ? [text] : text
  return [
    chunk({ role: 'assistant', content: null, reasoning_content: '' }),
    ...thoughts.map((r) => chunk({ content: null, reasoning_content: r })),
    ...answer.map((t) => chunk({ content: t, reasoning_content: null })),
    chunk({ content: '' }, options.finishReason ?? 'stop', options.usage ?? DEFAULT_USAGE),
    DONE,
  ]
}

export interface CannedToolCall {
  id: string
  name: string
  argFragments: readonly string[]
}

/**
 * Tool calls: each call opens with id and name (empty arguments), then the argument fragments
 * of all calls interleaved round-robin by wire index, then `finish_reason: 'tool_calls'`.
 */
export function toolCallEvents(calls: readonly CannedToolCall[], options: FinishOptions = {}): SseItem[] {
  const items: SseItem[] = [chunk({ role: 'assistant', content: '' })]
  calls.forEach((call, index) => {
    items.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    )
  })
  const rounds = Math.max(0, ...calls.map((c) => c.argFragments.length))
  for (let round = 0; round < rounds; round++) {
    calls.forEach((call, index) => {
      const fragment = call.argFragments[round]
      if (fragment === undefined) return
      items.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }))
    })
  }
  items.push(chunk({}, options.finishReason ?? 'tool_calls', options.usage ?? DEFAULT_USAGE), DONE)
  return items
}
