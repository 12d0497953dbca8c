import fc from 'fast-check'
import { deepFreeze } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { cloneParameters } from '../src/clone-parameters.js'

const SEED = 160_016

/** Structure and prototypes of `a` and `b` agree, and no object of `a` is an object of `b`. */
function expectSameAsStructuredClone(source: unknown) {
  const expected = structuredClone(source)
  const actual = cloneParameters(source)
  expect(actual).toStrictEqual(expected)
  // Same key order at every level (toStrictEqual ignores it).
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected))
  const objects = new Set<unknown>()
  const collect = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return
    objects.add(value)
    for (const child of Object.values(value)) collect(child)
  }
  collect(source)
  const walk = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return
    expect(objects.has(value)).toBe(false)
    expect([Object.prototype, Array.prototype]).toContain(Object.getPrototypeOf(value))
    for (const child of Object.values(value)) walk(child)
  }
  walk(actual)
}

describe('cloneParameters: structuredClone semantics for tool parameters', () => {
  it('equals structuredClone on random JSON-like trees, frozen or not (fast-check)', () => {
    const leaf = fc.oneof(
      fc.string(),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
    )
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 5 }),
        fc.dictionary(fc.string(), tie('node'), { maxKeys: 5 }),
      ),
    })).node
    fc.assert(
      fc.property(fc.dictionary(fc.string(), tree, { maxKeys: 6 }), fc.boolean(), (schema, freeze) => {
        const source = freeze ? deepFreeze(schema) : schema
        expectSameAsStructuredClone(source)
        // A frozen tree is proven once and copied directly afterwards: the second copy must agree as well.
        expectSameAsStructuredClone(source)
      }),
      { seed: SEED, numRuns: 150, verbose: true },
    )
  })

  it('a copy is mutable and independent of the source and of other copies', () => {
    const source = deepFreeze({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] })
    const first = cloneParameters(source) as { properties: { path: { type: string } }; required: string[] }
    const second = cloneParameters(source) as typeof first
    first.properties.path.type = 'number'
    first.required.push('limit')
    expect(second).toEqual({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] })
    expect(source.properties.path.type).toBe('string')
  })

  it('keeps an own __proto__ key as an own property, like structuredClone', () => {
    const source = JSON.parse('{"__proto__": {"polluted": true}, "type": "object"}') as object
    const copy = cloneParameters(source)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(['__proto__', 'type'])
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined()
    expectSameAsStructuredClone(source)
  })

  it('a null-prototype record becomes an ordinary object, as structuredClone makes it', () => {
    const source = Object.assign(Object.create(null) as object, { type: 'object' })
    expectSameAsStructuredClone(source)
  })

  it('hands everything that is not a plain tree to structuredClone', () => {
    const shared = { type: 'string' }
    const sparse: unknown[] = [1]
    sparse[3] = 4
    const extra = Object.assign([1, 2], { note: 'kept by structuredClone' })
    const withGetter = Object.defineProperty({}, 'type', { get: () => 'string', enumerable: true })
    let deep: Record<string, unknown> = {}
    for (let i = 0; i < 400; i++) deep = { next: deep }
    for (const source of [
      { a: shared, b: shared }, // sharing is kept by structuredClone
      { when: new Date(0) },
      { map: new Map([[1, 2]]) },
      { sparse },
      { extra },
      withGetter,
      deep,
    ]) {
      const copy = cloneParameters(source)
      expect(copy).toStrictEqual(structuredClone(source))
    }
    const copy = cloneParameters({ a: shared, b: shared }) as { a: object; b: object }
    expect(copy.a).toBe(copy.b)
    expect(Object.keys(cloneParameters({ extra }).extra)).toEqual(['0', '1', 'note'])
  })

  it('throws DataCloneError where structuredClone does', () => {
    for (const source of [{ f: () => 1 }, { s: Symbol('x') }, deepFreeze({ nested: { f: () => 1 } })]) {
      expect(() => cloneParameters(source)).toThrow(expect.objectContaining({ name: 'DataCloneError' }))
    }
  })
})
