import fc from 'fast-check'
import {
  callId,
  createAssistantMessage,
  createMessage,
  createToolResultMessage,
  createUserMessage,
  extendHistory,
  type CachePlanInput,
  type Message,
} from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { placeBreakpoints, prefixLayout } from '../src/index.js'

const tools = [{ name: 'read_file', description: 'x'.repeat(700), parameters: { type: 'object' } }]
const system = `${'A'.repeat(6000)}\n\n${'B'.repeat(6000)}\n\n${'C'.repeat(6000)}`
const sections = [
  { name: 'a', start: 0, end: 6000, changes: 0 },
  { name: 'b', start: 6002, end: 12_002, changes: 0 },
  { name: 'c', start: 12_004, end: 18_004, changes: 0 },
]
const options = { minTokens: 1024, stableTtl: '1h' as const }
const input = (messages: readonly Message[], extra: Partial<CachePlanInput> = {}): CachePlanInput => ({
  request: { provider: 'anthropic', model: 'claude-sonnet-4-5', system, tools, messages },
  sections,
  toolChanges: 0,
  ...extra,
})

/** An assistant step of `n` parallel tool calls and its `n` results. */
function toolStep(n: number, step: number): Message[] {
  const calls = Array.from({ length: n }, (_, i) => ({
    type: 'tool-call' as const,
    id: callId(`t${step}_${i}`),
    name: 'read_file',
    arguments: `{"path":"f${i}"}`,
  }))
  return [
    createAssistantMessage({ content: calls, source: { provider: 'anthropic', model: 'm' } }),
    ...calls.map((c) => createToolResultMessage({ callId: c.id, content: 'ok' })),
  ]
}

describe('placeBreakpoints', () => {
  it('places tools, the whole system and the newest block when nothing changed yet', () => {
    const plan = placeBreakpoints(input([createUserMessage('hello')]), options)
    expect(plan.breakpoints.map((b) => [b.at, b.reason, b.ttl])).toEqual([
      ['system', 'stable-system', '1h'],
      ['message', 'next-request+checkpoint', '1h'],
    ])
    // the tools alone (~220 tokens) are under the model's minimum: left out, and the log says why
    expect(plan.skipped).toEqual([
      { reason: 'tools', detail: expect.stringContaining("under the model's minimum of 1024") },
    ])
    expect(plan.breakpoints[0]).toMatchObject({ offset: system.length })
  })

  it('ends the stable system before the first section that ever changed', () => {
    const changed = sections.map((s) => (s.name === 'c' ? { ...s, changes: 1 } : s))
    const plan = placeBreakpoints(input([createUserMessage('x')], { sections: changed }), options)
    expect(plan.breakpoints.find((b) => b.reason === 'stable-system')).toMatchObject({ at: 'system', offset: 12_004 })
  })

  const checkpointAt0 = {
    policy: 'bridle',
    breakpoints: [{ at: 'message' as const, index: 0, block: 0, ttl: '1h' as const, reason: 'checkpoint' }],
  }

  it('bridges to the previous request when a step of 12 parallel calls brought more than 20 blocks', () => {
    const before = [createUserMessage('go'), ...toolStep(1, 0)]
    const previous = { messageCount: 3, elapsedMs: 1000, prefixHeld: true, plan: checkpointAt0 }
    const after = [...before, ...toolStep(12, 1)]
    const plan = placeBreakpoints(input(after, { previous }), options)
    expect(plan.breakpoints.map((b) => [b.reason, b.ttl])).toEqual([
      ['stable-system', '1h'],
      ['checkpoint', '1h'],
      ['lookback-bridge', '5m'],
      ['next-request', '5m'],
    ])
    expect(plan.breakpoints[2]).toMatchObject({ at: 'message', index: 2, block: 0 })
    // a small step stays within the lookback: no bridge
    const small = [...before, ...toolStep(3, 2)]
    const noBridge = placeBreakpoints(input(small, { previous }), options)
    expect(noBridge.breakpoints.map((b) => b.reason)).toEqual(['stable-system', 'checkpoint', 'next-request'])
  })

  it('moves the checkpoint to the newest block once the history grew 15% past it, on a request that adds little', () => {
    const grown = [createUserMessage('go'), createUserMessage('z'.repeat(4000)), createUserMessage('ok')]
    const after = (messageCount: number) =>
      placeBreakpoints(
        input(grown, { previous: { messageCount, elapsedMs: 1000, prefixHeld: true, plan: checkpointAt0 } }),
        options,
      ).breakpoints.map((b) => [b.reason, b.ttl])
    expect(after(2)).toEqual([
      ['stable-system', '1h'],
      ['next-request+checkpoint', '1h'],
    ])
    // this request itself brought most of the growth: renewing now would bill it at 2×, so the old one is kept
    expect(after(1)).toEqual([
      ['stable-system', '1h'],
      ['checkpoint', '1h'],
      ['next-request', '5m'],
    ])
  })

  it('takes no long-TTL checkpoint in a request whose prefix changed (the write would re-bill it at 2×)', () => {
    const messages = [createUserMessage('go'), ...toolStep(1, 0)]
    const previous = { messageCount: 3, elapsedMs: 1000, prefixHeld: false, plan: checkpointAt0 }
    const plan = placeBreakpoints(input(messages, { previous }), options)
    expect(plan.breakpoints.map((b) => [b.reason, b.ttl])).toEqual([
      ['stable-system', '1h'],
      ['next-request', '5m'],
    ])
    expect(plan.skipped).toContainEqual({ reason: 'checkpoint', detail: expect.stringContaining('re-bill it at 2×') })
  })

  it('never places more than four, and keeps the most useful', () => {
    const big = [{ ...tools[0]!, description: 'y'.repeat(30_000) }]
    const snapshot = createMessage({
      role: 'user',
      content: [{ type: 'text', text: 'cwd /w' }],
      source: { kind: 'plugin', plugin: 'p', form: 'snapshot', sections: [{ name: 'cwd', text: '/w' }] },
    })
    const messages = [createUserMessage('go'), snapshot, ...toolStep(12, 1)]
    const previous = { messageCount: 2, elapsedMs: 1000, prefixHeld: true, plan: checkpointAt0 }
    const plan = placeBreakpoints(
      { ...input(messages, { previous, snapshotIndex: 1 }), request: { ...input(messages).request, tools: big } },
      options,
    )
    expect(plan.breakpoints.map((b) => b.reason)).toEqual([
      'stable-system',
      'checkpoint',
      'lookback-bridge',
      'next-request',
    ])
    expect(plan.skipped).toEqual([
      { reason: 'tools', detail: 'the API takes at most 4 breakpoints' },
      { reason: 'context-snapshot', detail: 'same place as a breakpoint already placed' },
    ])
  })

  it('measures an extended history from the measurement of its base', () => {
    const base = Object.freeze([createUserMessage('a'.repeat(350))])
    const first = prefixLayout(input(base))
    const next = extendHistory(base, [createUserMessage('b'.repeat(700))])
    const second = prefixLayout(input(next))
    expect(second.tokensThrough(0)).toBe(first.tokensThrough(0))
    expect(second.tokensThrough(1) - second.tokensThrough(0)).toBeGreaterThanOrEqual(200)
    expect(second.blocksThrough(1)).toBe(2)
  })

  it('measures every history of a chain of extensions as a fresh copy is measured, whichever was measured first', () => {
    const pool = [
      createUserMessage('u'.repeat(90)),
      createAssistantMessage({
        content: [{ type: 'text', text: 'a'.repeat(400) }],
        source: { provider: 'anthropic', model: 'm' },
      }),
      createUserMessage('v'),
    ]
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(30), fc.array(fc.nat(pool.length - 1), { maxLength: 3 }), fc.boolean()), {
          maxLength: 15,
        }),
        (ops) => {
          const seen: (readonly Message[])[] = [Object.freeze([createUserMessage('head')])]
          const check = (h: readonly Message[]) => {
            const got = prefixLayout(input(h))
            const fresh = prefixLayout(input(Object.freeze([...h])))
            for (let i = 0; i < h.length; i++) {
              expect(got.tokensThrough(i)).toBe(fresh.tokensThrough(i))
              expect(got.blocksThrough(i)).toBe(fresh.blocksThrough(i))
            }
          }
          for (const [pick, extra, measureNow] of ops) {
            const next = extendHistory(
              seen[pick % seen.length]!,
              extra.map((i) => pool[i]!),
            )
            seen.push(next)
            if (measureNow) check(next)
          }
          for (const h of [...seen].reverse()) check(h)
        },
      ),
    )
  })
})
