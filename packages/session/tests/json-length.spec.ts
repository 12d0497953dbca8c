/**
 * `jsonTextLength`, the length of a value's JSON text counted without writing it, against `JSON.stringify` itself:
 * every JSON value (escapes, control characters, lone and paired surrogates, numbers in every notation), values
 * JSON.stringify leaves out or writes as `null`, and objects it writes through `toJSON` or as `{}`.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonTextLength } from '../src/json/json-length.js'

const stringified = (value: unknown) => JSON.stringify(value)?.length ?? 0

describe('jsonTextLength', () => {
  it('is the length of JSON.stringify for any JSON value, strings of any code units (property)', () => {
    const text = fc.string({ unit: 'binary' })
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value')),
        fc.dictionary(text, tie('value')),
      ),
    })).value
    fc.assert(
      fc.property(json, (value) => {
        expect(jsonTextLength(value)).toBe(stringified(value))
      }),
      { numRuns: 400 },
    )
  })

  it('and for what JSON.stringify skips, nulls or converts (property)', () => {
    fc.assert(
      fc.property(fc.anything({ withBoxedValues: true, withMap: true, withSet: true, withDate: true }), (value) => {
        expect(jsonTextLength(value)).toBe(stringified(value))
      }),
      { numRuns: 300 },
    )
    const odd = [
      { a: undefined, b: () => 1, c: Symbol('s'), d: 1 },
      [undefined, () => 1, Symbol('s')],
      { toJSON: () => ({ x: '"quoted"' }) },
      { toJSON: 'not a function' },
      new Date(0),
      -0,
      1e21,
      Number.NaN,
      '\u2028\ud800\udc00\ud800',
      Object.create(null),
    ]
    for (const value of odd) expect(jsonTextLength(value)).toBe(stringified(value))
  })

  it('counts a deeply nested value as JSON.stringify does', () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 500; i++) deep = { next: [deep] }
    expect(jsonTextLength(deep)).toBe(stringified(deep))
  })
})
