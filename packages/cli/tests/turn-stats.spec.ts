import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '@bridle/session'
import { formatTurnStats, turnStats } from '../src/turn-stats.js'

const event = (seq: number, time: number, type: string, data: unknown) => ({ seq, time, type, data }) as SessionEvent

describe('turnStats', () => {
  const events = [
    event(0, 1000, 'turn/start', { turn: 1 }),
    event(1, 1000, 'step/start', { turn: 1, step: 1 }),
    event(2, 1100, 'assistant/message', {
      turn: 1,
      step: 1,
      message: {},
      usage: { inputTokens: 200, outputTokens: 10, cacheReadTokens: 1000 },
    }),
    event(3, 1100, 'tool/call', { turn: 1, step: 1, callId: 'a', name: 'read_file', arguments: '{}' }),
    event(4, 1200, 'step/start', { turn: 1, step: 2 }),
    event(5, 1900, 'assistant/message', {
      turn: 1,
      step: 2,
      message: {},
      usage: { inputTokens: 30, outputTokens: 24, cacheReadTokens: 1200, cacheWriteTokens: 5 },
    }),
    event(6, 2234, 'turn/end', { turn: 1, reason: { kind: 'completed' } }),
    event(7, 3000, 'turn/start', { turn: 2 }),
  ]

  it('sums steps, tool calls, billed input (uncached + cache reads + writes), cached and output tokens, and wall time', () => {
    const stats = turnStats(events, 1)
    expect(stats).toEqual({
      turn: 1,
      steps: 2,
      toolCalls: 1,
      tokens: { input: 2435, cached: 2200, output: 34 },
      wallMs: 1234,
    })
    expect(formatTurnStats(stats)).toBe('2 steps · 1 tool call · tokens 2435 in / 2200 cached / 34 out · 1.2s')
  })

  it('says the tokens were not reported when no answer carried usage', () => {
    expect(formatTurnStats(turnStats(events, 2))).toBe('0 steps · 0 tool calls · tokens not reported · 0.0s')
  })
})
