import { createUserMessage, type CacheBreakpoint, type CachePlan } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { describeBreakpoint, describeCacheMiss, predictCacheRead } from '../src/index.js'

const tools: CacheBreakpoint = { at: 'tools', ttl: '1h', reason: 'tools', tokens: 2000 }
const system: CacheBreakpoint = { at: 'system', offset: 400, ttl: '1h', reason: 'stable-system', tokens: 2100 }
const onMessage = (index: number, reason = 'next-request', tokens = 5000 + index * 100): CacheBreakpoint => ({
  at: 'message',
  index,
  block: 0,
  ttl: '5m',
  reason,
  tokens,
})
const plan = (...breakpoints: CacheBreakpoint[]): CachePlan => ({ policy: 'bridle', breakpoints })
const messages = (n: number) => Array.from({ length: n }, (_, i) => createUserMessage(`m${i}`))
const held = { toolsKept: true, systemKept: true, systemCharsKept: 900, messagesKept: 10, elapsedMs: 1000 }

describe('predictCacheRead', () => {
  it('reads the previous request newest breakpoint when everything held', () => {
    const row = predictCacheRead({
      plan: plan(tools, system, onMessage(11)),
      messages: messages(12),
      previous: { ...held, plan: plan(tools, system, onMessage(9)) },
    })
    expect(row).toEqual({ policy: 'bridle', breakpoints: [tools, system, onMessage(11)], predictedReadTokens: 5900 })
  })

  it.each([
    [{ toolsKept: false }, { kind: 'tools-changed' }, 0],
    [{ systemKept: false, systemCharsKept: 450 }, { kind: 'system-changed' }, 2100],
    [{ messagesKept: 3 }, { kind: 'history-changed', position: 9 }, 2100],
    [{ elapsedMs: 6 * 60_000 }, { kind: 'ttl-expired', ttl: '5m', elapsedMs: 360_000 }, 2100],
  ])('names the miss when %j', (change, miss, predicted) => {
    const row = predictCacheRead({
      plan: plan(tools, system, onMessage(11)),
      messages: messages(12),
      previous: { ...held, ...change, plan: plan(tools, system, onMessage(9)) },
    })
    expect(row.miss).toEqual(miss)
    expect(row.predictedReadTokens).toBe(predicted)
  })

  it('sees a cached prefix more than 20 blocks back as lost, and read again through a bridge breakpoint', () => {
    const history = messages(40)
    const previous = { ...held, messagesKept: 40, plan: plan(tools, system, onMessage(9)) }
    const lost = predictCacheRead({ plan: plan(tools, system, onMessage(39)), messages: history, previous })
    expect(lost.miss).toEqual({ kind: 'lookback', blocks: 30 })
    const bridged = predictCacheRead({
      plan: plan(tools, system, onMessage(9, 'lookback-bridge'), onMessage(39)),
      messages: history,
      previous,
    })
    expect(bridged.miss).toBeUndefined()
    expect(bridged.predictedReadTokens).toBe(5900)
  })

  it('words breakpoints and misses for a terminal line', () => {
    expect(describeBreakpoint(system)).toBe('system[..400] 1h (stable-system, ~2,100 tok)')
    expect(describeBreakpoint(onMessage(2))).toBe('message 3.1 5m (next-request, ~5,200 tok)')
    expect(describeCacheMiss({ kind: 'ttl-expired', ttl: '5m', elapsedMs: 432_000 })).toBe(
      'TTL expired (5m TTL, 7m 12s since the previous request)',
    )
    expect(describeCacheMiss({ kind: 'lookback', blocks: 24 })).toBe(
      'the cached prefix is 24 blocks back, past the 20-block lookback',
    )
  })
})
