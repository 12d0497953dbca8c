import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { callConfigEquals, callConfigOf, reasoningEffortId, type LlmCallConfig } from '@bridle/llm'

const base: LlmCallConfig = { provider: 'p', model: 'm' }

describe('callConfigEquals', () => {
  it('distinguishes stop order and length', () => {
    expect(callConfigEquals({ ...base, stop: ['a', 'b'] }, { ...base, stop: ['b', 'a'] })).toBe(false)
    expect(callConfigEquals({ ...base, stop: ['a'] }, { ...base, stop: ['a', 'b'] })).toBe(false)
    expect(callConfigEquals({ ...base, stop: ['a', 'b'] }, { ...base, stop: ['a', 'b'] })).toBe(true)
  })
  it('treats undefined as equal only to undefined', () => {
    expect(callConfigEquals({ ...base, stop: [] }, base)).toBe(false)
    expect(callConfigEquals({ ...base, maxTokens: 10 }, base)).toBe(false)
    expect(callConfigEquals(base, { ...base, temperature: 0 })).toBe(false)
    expect(callConfigEquals({ ...base, reasoningEffort: undefined }, base)).toBe(true)
  })
  it('compares every field', () => {
    expect(callConfigEquals(base, { ...base, provider: 'q' })).toBe(false)
    expect(callConfigEquals(base, { ...base, model: 'n' })).toBe(false)
    expect(
      callConfigEquals(
        { ...base, reasoningEffort: reasoningEffortId('high') },
        { ...base, reasoningEffort: reasoningEffortId('low') },
      ),
    ).toBe(false)
    expect(callConfigEquals({ ...base, temperature: 0.5 }, { ...base, temperature: 0.5 })).toBe(true)
  })
  it('property: reflexive on generated configs and equal to its callConfigOf copy', () => {
    const config = fc.record(
      {
        provider: fc.string(),
        model: fc.string(),
        temperature: fc.double({ noNaN: true }),
        maxTokens: fc.nat(),
        stop: fc.array(fc.string()),
      },
      { requiredKeys: ['provider', 'model'] },
    )
    fc.assert(fc.property(config, (c) => callConfigEquals(c, c) && callConfigEquals(c, callConfigOf(c))))
  })
})

describe('callConfigOf', () => {
  it('picks the six fields and drops undefined ones', () => {
    const picked = callConfigOf({
      provider: 'p',
      model: 'm',
      temperature: undefined,
      maxTokens: 5,
      stop: ['x'],
      messages: [],
      system: 'sys',
      sessionId: undefined,
    } as never)
    expect(picked).toEqual({ provider: 'p', model: 'm', maxTokens: 5, stop: ['x'] })
    expect(Object.keys(picked)).not.toContain('temperature')
    expect(Object.keys(picked)).not.toContain('messages')
  })
})
