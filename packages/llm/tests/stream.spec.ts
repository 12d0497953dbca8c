import { describe, expect, it } from 'vitest'
import { billedInputTokens, callId, isTokenDelta, streamGrammarViolations, type StreamChunk } from '@bridle/llm'

const stop: StreamChunk = { type: 'finish', reason: { kind: 'stop' } }
const text = (index: number, t = 'x'): StreamChunk[] => [
  { type: 'block-start', index, blockType: 'text' },
  { type: 'text-delta', index, text: t },
  { type: 'block-end', index, block: { type: 'text', text: t } },
]

function violations(chunks: StreamChunk[]): string[] {
  return streamGrammarViolations(chunks)
}

describe('streamGrammarViolations: one case per rule', () => {
  it('index must be a non-negative safe integer', () => {
    expect(violations([{ type: 'block-start', index: -1, blockType: 'text' }, stop]).join()).toMatch(
      /non-negative safe integer/,
    )
    expect(violations([{ type: 'block-start', index: 1.5, blockType: 'text' }, stop])).toHaveLength(1)
    expect(violations([{ type: 'block-start', index: 2 ** 53, blockType: 'text' }, stop])).toHaveLength(1)
  })
  it('no second block-start for an index', () => {
    const v = violations([
      ...text(0),
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'finish', reason: { kind: 'error', failure: { message: 'm', code: 'SERVER' } } },
    ])
    expect(v.join()).toMatch(/second block-start for index 0/)
  })
  it('a delta must target an open block', () => {
    expect(violations([{ type: 'text-delta', index: 0, text: 'a' }, stop]).join()).toMatch(/not open/)
    expect(violations([...text(0), { type: 'text-delta', index: 0, text: 'late' }, stop]).join()).toMatch(/not open/)
  })
  it('a delta must match the open block type', () => {
    const v = violations([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'reasoning-delta', index: 0, text: 'a' },
      { type: 'block-end', index: 0, block: { type: 'text', text: '' } },
      stop,
    ])
    expect(v.join()).toMatch(/reasoning-delta for index 0, which is a text block/)
    const w = violations([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'tool-call-delta', index: 0, id: callId(''), argumentsDelta: '{' },
      { type: 'block-end', index: 0, block: { type: 'text', text: '' } },
      stop,
    ])
    expect(w).toHaveLength(1)
  })
  it('block-end must close an open block of the same type', () => {
    expect(violations([{ type: 'block-end', index: 3, block: { type: 'text', text: '' } }, stop]).join()).toMatch(
      /not open/,
    )
    const v = violations([
      { type: 'block-start', index: 0, blockType: 'reasoning' },
      { type: 'block-end', index: 0, block: { type: 'text', text: '' } },
      { type: 'finish', reason: { kind: 'error', failure: { message: 'm', code: 'SERVER' } } },
    ])
    expect(v.join()).toMatch(/carries a text block, but the open block is reasoning/)
  })
  it('at most one usage, before finish', () => {
    const usage: StreamChunk = { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } }
    expect(violations([...text(0), usage, usage, stop]).join()).toMatch(/second usage/)
    expect(violations([...text(0), stop, usage]).join()).toMatch(/after finish/)
  })
  it('exactly one finish, last', () => {
    expect(violations(text(0))).toEqual(['missing finish chunk (exactly one, last)'])
    expect(violations([...text(0), stop, stop]).join()).toMatch(/second finish/)
    expect(violations([stop, ...text(0)]).join()).toMatch(/after finish/)
  })
  it('a clean finish leaves no block open; error/aborted may', () => {
    const open: StreamChunk[] = [
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'a' },
    ]
    for (const kind of ['stop', 'tool-calls', 'max-tokens'] as const) {
      expect(violations([...open, { type: 'finish', reason: { kind } }]).join()).toMatch(/leaves block\(s\) 0 open/)
    }
    const failure = { message: 'm', code: 'ABORTED' }
    expect(violations([...open, { type: 'finish', reason: { kind: 'aborted', failure } }])).toEqual([])
    expect(violations([...open, { type: 'finish', reason: { kind: 'error', failure } }])).toEqual([])
  })
})

describe('streamGrammarViolations: valid streams', () => {
  it('text', () => {
    expect(
      violations([...text(0, 'hello'), { type: 'usage', usage: { inputTokens: 3, outputTokens: 1 } }, stop]),
    ).toEqual([])
  })
  it('reasoning then text', () => {
    expect(
      violations([
        { type: 'block-start', index: 0, blockType: 'reasoning' },
        { type: 'reasoning-delta', index: 0, text: 'hmm' },
        { type: 'block-end', index: 0, block: { type: 'reasoning', text: 'hmm' } },
        ...text(1, 'answer'),
        stop,
      ]),
    ).toEqual([])
  })
  it('parallel tool calls with interleaved deltas', () => {
    const call = (_index: number, id: string) => ({
      type: 'tool-call' as const,
      id: callId(id),
      name: 'read',
      arguments: '{"p":1}',
    })
    expect(
      violations([
        { type: 'block-start', index: 0, blockType: 'tool-call' },
        { type: 'tool-call-delta', index: 0, id: callId('a'), name: 'read', argumentsDelta: '{"p"' },
        { type: 'block-start', index: 1, blockType: 'tool-call' },
        { type: 'tool-call-delta', index: 1, id: callId(''), name: 'read', argumentsDelta: '{"p"' },
        { type: 'tool-call-delta', index: 0, id: callId(''), argumentsDelta: ':1}' },
        { type: 'tool-call-delta', index: 1, id: callId('b'), argumentsDelta: ':1}' },
        { type: 'block-end', index: 1, block: call(1, 'b') },
        { type: 'block-end', index: 0, block: call(0, 'a') },
        { type: 'finish', reason: { kind: 'tool-calls' } },
      ]),
    ).toEqual([])
  })
})

describe('isTokenDelta and usage', () => {
  it('counts only deltas that carry output', () => {
    expect(isTokenDelta({ type: 'text-delta', index: 0, text: 'a' })).toBe(true)
    expect(isTokenDelta({ type: 'text-delta', index: 0, text: '' })).toBe(false)
    expect(isTokenDelta({ type: 'reasoning-delta', index: 0, text: 'r' })).toBe(true)
    expect(isTokenDelta({ type: 'tool-call-delta', index: 0, id: callId('c'), argumentsDelta: '' })).toBe(false)
    expect(isTokenDelta({ type: 'tool-call-delta', index: 0, id: callId(''), name: 'read', argumentsDelta: '' })).toBe(
      true,
    )
    expect(isTokenDelta({ type: 'tool-call-delta', index: 0, id: callId(''), argumentsDelta: '{' })).toBe(true)
    expect(isTokenDelta({ type: 'block-start', index: 0, blockType: 'text' })).toBe(false)
    expect(isTokenDelta(stop)).toBe(false)
  })
  it('billed input adds disjoint cache counts', () => {
    expect(billedInputTokens({ inputTokens: 10, outputTokens: 5 })).toBe(10)
    expect(billedInputTokens({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 90, cacheWriteTokens: 0 })).toBe(100)
  })
})
