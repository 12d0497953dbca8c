/**
 * Records too deep for `JSON.stringify` are still written. Appends refuse such data, but a session can hold it (a log
 * written before the JSON limit, a seed adopted from persistence); before the iterative fallback its batch overflowed
 * the stack on every retry and the session never saved again.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { eventLine } from '../src/index.js'
import { stringifyIteratively, stringifyRecord } from '../src/json-text.js'
import { captureWarnings, makeApp, unsealed } from './helpers.js'

function nested(levels: number): unknown {
  let value: unknown = 'leaf'
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value }
  return value
}

describe('the iterative serializer', () => {
  it('writes exactly what JSON.stringify writes (property, seeded)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(stringifyIteratively(value)).toBe(JSON.stringify(value))
      }),
      { seed: 2024, numRuns: 500 },
    )
  })

  it('skips undefined, functions and symbols in objects and writes null for them in arrays, like JSON.stringify', () => {
    const value = { a: undefined, b: () => 1, c: Symbol('x'), d: [undefined, () => 1], e: null, '': 'empty key' }
    expect(stringifyIteratively(value)).toBe(JSON.stringify(value))
  })

  it('serializes 50,000 levels where JSON.stringify overflows the stack', () => {
    const deep = nested(50_000)
    expect(() => JSON.stringify(deep)).toThrow(RangeError)
    const text = stringifyRecord(deep)
    // (vitest's deep equality recurses too, so the round trip is compared as text)
    expect(stringifyIteratively(JSON.parse(text))).toBe(text)
    expect(text.length).toBe(50_000 * 2 + 6 + 25_000 * 4)
    expect(eventLine({ type: 'plugin/deep', seq: 0, time: 1, data: deep })).toBe(
      `{"type":"plugin/deep","seq":0,"time":1,"data":${text}}\n`,
    )
  })
})

describe('a session holding a record too deep for JSON.stringify keeps saving', () => {
  it('a persistence-adopted seed with 20,000-deep data is written, later events too, and it reloads', async () => {
    const warnings = captureWarnings()
    const { ctx, root } = makeApp({ writeBatchMaxDelayMs: 1, extraEventTypes: ['plugin/deep', 'plugin/after'] })
    const deep = nested(20_000)
    const seed = [{ type: 'plugin/deep', seq: 0, time: 1, data: deep }]
    const session = ctx.sessions.create('deep', { seed, seedSource: 'persistence', meta: { createdAt: 1 } })
    await ctx.sessions.flush(session)
    session.append('plugin/after', { n: 1 })
    await ctx.sessions.flush(session)
    const lines = unsealed(readFileSync(join(root, 'deep.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
    expect(lines.slice(1).map((line) => JSON.parse(line).type)).toEqual([
      'plugin/deep',
      'session/end-seed',
      'plugin/after',
    ])
    expect(lines[1]).toBe(`{"type":"plugin/deep","seq":0,"time":1,"data":${stringifyIteratively(deep)}}`)
    const loaded = await ctx.sessionPersistence!.load('deep')
    expect(loaded.events.map((event) => event.type)).toEqual(['plugin/deep', 'session/end-seed', 'plugin/after'])
    expect(stringifyIteratively(loaded.events[0]!.data)).toBe(stringifyIteratively(deep))
    expect(warnings).toEqual([])
  })
})
