import { createUserMessage } from '@bridle/llm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildRequestBody, resolveConfig } from '../src/index.js'
import { CacheSimulator, blocksOfBody, simRequest, type SimBlock } from '../src/testing.js'

const block = (key: string, tokens = 100): SimBlock => ({ key, tokens })
const blocks = (n: number, tag = 'b') => Array.from({ length: n }, (_, i) => block(`${tag}${i}`))
const MIN = 1000
const sim = () => new CacheSimulator({ minTokens: MIN })

describe('CacheSimulator', () => {
  it('writes at a breakpoint, then reads that prefix and writes only the new part', () => {
    const s = sim()
    const first = simRequest(0, blocks(20))
    expect(s.bill(first, [{ at: 19, ttl: '5m' }])).toEqual({
      uncached: 0,
      read: 0,
      write5m: 2000,
      write1h: 0,
      cost: 2500,
    })
    const second = simRequest(1000, [...blocks(20), ...blocks(3, 'n')])
    expect(s.bill(second, [{ at: 22, ttl: '5m' }])).toEqual({
      uncached: 0,
      read: 2000,
      write5m: 300,
      write1h: 0,
      cost: 575,
    })
  })

  it('bills a 1-hour write at 2× and keeps it past five minutes, when a 5-minute one is gone', () => {
    const s = sim()
    s.bill(simRequest(0, blocks(20)), [
      { at: 11, ttl: '1h' },
      { at: 19, ttl: '5m' },
    ])
    const later = simRequest(6 * 60_000, blocks(20))
    expect(
      s.bill(later, [
        { at: 11, ttl: '1h' },
        { at: 19, ttl: '5m' },
      ]),
    ).toMatchObject({ read: 1200, write5m: 800 })
    const first = sim().bill(simRequest(0, blocks(20)), [
      { at: 11, ttl: '1h' },
      { at: 19, ttl: '5m' },
    ])
    expect(first).toMatchObject({ write1h: 1200, write5m: 800, cost: 1200 * 2 + 800 * 1.25 })
  })

  it('looks back 20 blocks from a breakpoint, not 21', () => {
    const s = sim()
    s.bill(simRequest(0, blocks(12)), [{ at: 11, ttl: '5m' }])
    const twenty = simRequest(1, blocks(32))
    expect(s.fork().bill(twenty, [{ at: 31, ttl: '5m' }]).read).toBe(1200)
    const past = simRequest(1, blocks(33))
    expect(s.fork().bill(past, [{ at: 32, ttl: '5m' }]).read).toBe(0)
    expect(
      s.fork().bill(past, [
        { at: 11, ttl: '5m' },
        { at: 32, ttl: '5m' },
      ]).read,
    ).toBe(1200)
  })

  it('ignores a breakpoint under the minimum and refuses a fifth', () => {
    expect(sim().bill(simRequest(0, blocks(20)), [{ at: 5, ttl: '5m' }])).toMatchObject({ write5m: 0, uncached: 2000 })
    const five = [0, 1, 2, 3, 4].map((i) => ({ at: 10 + i, ttl: '5m' as const }))
    expect(() => sim().bill(simRequest(0, blocks(20)), five)).toThrow('at most 4')
  })

  it('bills every input token exactly once, whatever the placement (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 1, max: 40 }), fc.array(fc.integer({ min: 0, max: 39 }), { maxLength: 4 })),
          {
            minLength: 1,
            maxLength: 12,
          },
        ),
        fc.array(fc.constantFrom<'5m' | '1h'>('5m', '1h'), { minLength: 4, maxLength: 4 }),
        (requests, ttls) => {
          const s = sim()
          requests.forEach(([n, at], i) => {
            const request = simRequest(i * 90_000, blocks(n))
            const bill = s.bill(
              request,
              at.map((a, j) => ({ at: a, ttl: ttls[j]! })),
            )
            expect(bill.uncached + bill.read + bill.write5m + bill.write1h).toBe(request.totalTokens)
            expect(bill.cost).toBeGreaterThanOrEqual(request.totalTokens * 0.1)
          })
        },
      ),
    )
  })

  it('reads blocks and breakpoints from a real request body, top-level automatic caching included', () => {
    const config = resolveConfig({})
    const body = buildRequestBody(
      {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        system: 'one. two.',
        tools: [{ name: 't', description: 'd', parameters: { type: 'object' } }],
        messages: [createUserMessage('a'), createUserMessage('b')],
        cache: {
          policy: 'test',
          breakpoints: [
            { at: 'tools', ttl: '1h', reason: 'tools' },
            { at: 'system', offset: 5, ttl: '1h', reason: 's' },
            { at: 'message', index: 0, block: 0, ttl: '5m', reason: 'm' },
          ],
        },
      },
      config,
    )
    const { blocks: found, breakpoints } = blocksOfBody(body, (text) => text.length)
    expect(found.map((b) => b.key.split('|')[0])).toEqual(['tool', 'system', 'system', 'user:start', 'user'])
    expect(breakpoints).toEqual([
      { at: 0, ttl: '1h' },
      { at: 1, ttl: '1h' },
      { at: 3, ttl: '5m' },
    ])
    const auto = blocksOfBody(
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], cache_control: { type: 'ephemeral' } },
      () => 1,
    )
    expect(auto.breakpoints).toEqual([{ at: 0, ttl: '5m' }])
  })
})
