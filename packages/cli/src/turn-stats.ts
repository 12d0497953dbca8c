import { billedInputTokens, type TokenUsage } from '@bridle/llm'
import type { SessionEvent } from '@bridle/session'

/** What one turn cost, from its events in the log. */
export interface TurnStats {
  turn: number
  steps: number
  toolCalls: number
  /** Summed over the turn's model answers; `undefined` when no answer reported usage (e.g. the scripted model). */
  tokens: { input: number; cached: number; output: number } | undefined
  /** From `turn/start` to `turn/end`, in milliseconds. */
  wallMs: number
}

/** Sums the turn `turn` of `events`: its steps, tool calls, reported token usage and wall time. */
export function turnStats(events: readonly SessionEvent[], turn: number): TurnStats {
  let start: number | undefined
  let end: number | undefined
  let steps = 0
  let toolCalls = 0
  let tokens: TurnStats['tokens']
  for (const event of events) {
    const data = event.data as { turn?: number; usage?: TokenUsage }
    if (data?.turn !== turn) continue
    if (event.type === 'turn/start') start = event.time
    else if (event.type === 'turn/end') end = event.time
    else if (event.type === 'step/start') steps += 1
    else if (event.type === 'tool/call') toolCalls += 1
    else if (event.type === 'assistant/message' && data.usage) {
      tokens ??= { input: 0, cached: 0, output: 0 }
      tokens.input += billedInputTokens(data.usage)
      tokens.cached += data.usage.cacheReadTokens ?? 0
      tokens.output += data.usage.outputTokens
    }
  }
  const last = events.at(-1)?.time ?? start ?? 0
  return { turn, steps, toolCalls, tokens, wallMs: (end ?? last) - (start ?? last) }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** `2 steps · 1 tool call · tokens 1234 in / 1000 cached / 56 out · 0.8s`. */
export function formatTurnStats(stats: TurnStats): string {
  const tokens = stats.tokens
    ? `tokens ${stats.tokens.input} in / ${stats.tokens.cached} cached / ${stats.tokens.output} out`
    : 'tokens not reported'
  return [
    plural(stats.steps, 'step'),
    plural(stats.toolCalls, 'tool call'),
    tokens,
    `${(stats.wallMs / 1000).toFixed(1)}s`,
  ].join(' · ')
}
