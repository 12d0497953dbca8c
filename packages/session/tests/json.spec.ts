import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isJsonValue, jsonValueViolation, snapshotJsonValue } from '../src/index.js'

const rejected: [string, () => unknown][] = [
  ['undefined', () => undefined],
  ['undefined in an object', () => ({ a: undefined })],
  ['undefined in an array', () => [undefined]],
  ['NaN', () => NaN],
  ['+Infinity', () => Infinity],
  ['-Infinity', () => ({ x: [-Infinity] })],
  ['-0', () => -0],
  ['nested -0', () => ({ n: [1, -0] })],
  ['BigInt', () => 1n],
  ['a function', () => ({ f: () => 1 })],
  ['a symbol value', () => ({ s: Symbol('x') })],
  ['a symbol key', () => ({ [Symbol('k')]: 1 })],
  [
    'a cycle',
    () => {
      const a: Record<string, unknown> = {}
      a.self = a
      return a
    },
  ],
  [
    'an array cycle',
    () => {
      const a: unknown[] = []
      a.push([a])
      return a
    },
  ],
  // biome-ignore lint/suspicious/noSparseArray: the hole is the input under test
  ['a sparse array', () => [1, , 3]],
  ['a length-only array', () => new Array(2)],
  [
    'an Array subclass',
    () => {
      class L extends Array {}
      return L.from([1])
    },
  ],
  ['an array with an extra string property', () => Object.assign([1], { extra: 1 })],
  [
    'an array with a non-enumerable extra property',
    () => {
      const a = [1]
      Object.defineProperty(a, 'x', { value: 1 })
      return a
    },
  ],
  [
    'an array with a symbol property',
    () => {
      const a = [1]
      ;(a as unknown as Record<symbol, number>)[Symbol('s')] = 1
      return a
    },
  ],
  [
    'a class instance',
    () =>
      new (class Point {
        x = 1
      })(),
  ],
  ['a Map', () => new Map()],
  ['a Set', () => new Set()],
  ['a Date', () => new Date(0)],
  ['a RegExp', () => /x/],
  ['a boxed number', () => new Number(1)],
  ['a non-enumerable key', () => Object.defineProperty({}, 'hidden', { value: 1, enumerable: false })],
  [
    'a forged Object.prototype look-alike',
    () => Object.create(Object.create(null, { constructor: { value: Object } })),
  ],
  [
    'a forged prototype with a revoked-proxy constructor',
    () => {
      const { proxy, revoke } = Proxy.revocable(() => {}, {})
      revoke()
      const proto = Object.create(null, { constructor: { value: proxy } })
      return Object.create(proto)
    },
  ],
  [
    'a forged Array.prototype look-alike',
    () => {
      const a = [1]
      Object.setPrototypeOf(a, Object.create(Array.prototype))
      return a
    },
  ],
]

describe('JSON value rules: rejections', () => {
  it.each(rejected)('rejects %s', (_name, make) => {
    expect(snapshotJsonValue(make())).toBeUndefined()
    expect(isJsonValue(make())).toBe(false)
    expect(jsonValueViolation(make())).toBeDefined()
  })

  it('names the offending value and its path', () => {
    expect(jsonValueViolation({ todos: [{ content: 'x', weight: NaN }] })).toEqual({
      path: '$.todos[0].weight',
      reason: 'NaN is not a finite number',
    })
    expect(jsonValueViolation({ 'a b': [1, 2, undefined] })).toEqual({
      path: '$["a b"][2]',
      reason: 'undefined is not a JSON value',
    })
    expect(jsonValueViolation({ n: -0 })?.reason).toBe('-0 does not survive JSON')
    expect(jsonValueViolation({ n: 2n })?.reason).toBe('BigInt 2n is not a JSON value')
    const cyc: Record<string, unknown> = { k: {} }
    ;(cyc.k as Record<string, unknown>).back = cyc
    expect(jsonValueViolation(cyc)).toEqual({ path: '$.k.back', reason: 'a cycle' })
  })

  it('propagates a getter throw and runs each getter exactly once', () => {
    expect(() =>
      snapshotJsonValue({
        get boom() {
          throw new Error('getter failed')
        },
      }),
    ).toThrow('getter failed')
    let calls = 0
    const value = Object.defineProperty({}, 'g', { enumerable: true, get: () => ++calls })
    expect(snapshotJsonValue(value)).toEqual({ g: 1 })
    expect(calls).toBe(1)
  })

  it('ignores toJSON (a Date-like toJSON object is judged by its own keys)', () => {
    expect(snapshotJsonValue({ toJSON: () => 'x' })).toBeUndefined()
    expect(snapshotJsonValue(new Date(0))).toBeUndefined()
  })
})

describe('JSON value rules: accepted values', () => {
  it('accepts primitives, plain records, null-prototype records and dense arrays', () => {
    for (const v of [null, true, false, 0, 1.5, -3, '', 'x', [], {}, [1, 'a', null, { b: [true] }]]) {
      expect(isJsonValue(v)).toBe(true)
      expect(snapshotJsonValue(v)).toEqual(v)
    }
    const bare = Object.create(null) as Record<string, unknown>
    bare.a = 1
    const copy = snapshotJsonValue(bare) as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(copy).toEqual({ a: 1 })
  })

  it('accepts values from a vm realm and returns plain values of this realm', () => {
    const foreign = runInNewContext('({ list: [1, { x: "y" }], nested: Object.create(null) })')
    expect(isJsonValue(foreign)).toBe(true)
    const copy = snapshotJsonValue(foreign) as { list: unknown[] }
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(copy.list)).toBe(Array.prototype)
    expect(copy).toEqual({ list: [1, { x: 'y' }], nested: {} })
    expect(snapshotJsonValue(runInNewContext('new Map()'))).toBeUndefined()
    expect(snapshotJsonValue(runInNewContext('[1,,2]'))).toBeUndefined()
  })

  it('keeps a literal __proto__ key as an own data property', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')
    const copy = snapshotJsonValue(parsed) as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.hasOwn(copy, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed))
  })

  it('detaches: later changes to the input are not seen, shared acyclic aliases are copied separately', () => {
    const shared = { n: 1 }
    const input = { a: shared, b: shared }
    const copy = snapshotJsonValue(input) as { a: { n: number }; b: { n: number } }
    shared.n = 2
    expect(copy.a.n).toBe(1)
    expect(copy.a).not.toBe(copy.b)
    expect(copy.a).toEqual(copy.b)
  })

  it('has no depth limit (5 000-deep arrays and 20 000-deep objects)', () => {
    let deep: unknown = []
    for (let i = 0; i < 5000; i++) deep = [deep]
    expect(isJsonValue(deep)).toBe(true)
    let copy = snapshotJsonValue(deep) as unknown
    let depth = 0
    while (Array.isArray(copy) && copy.length === 1) {
      copy = copy[0]
      depth++
    }
    expect(depth).toBe(5000)
    expect(copy).toEqual([])
    let obj: Record<string, unknown> = {}
    const root = obj
    for (let i = 0; i < 20000; i++) obj = obj.next = {}
    expect(isJsonValue(root)).toBe(true)
  })

  it('does not sort keys', () => {
    expect(Object.keys(snapshotJsonValue({ b: 1, a: 2 }) as object)).toEqual(['b', 'a'])
  })

  it('property: any JSON-parsed value round-trips losslessly', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = JSON.parse(JSON.stringify(value))
        const copy = snapshotJsonValue(parsed)
        expect(isJsonValue(parsed)).toBe(true)
        expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed))
      }),
    )
  })

  it('property: a value with undefined / NaN / -0 / a function planted anywhere is rejected', () => {
    const bad = fc.constantFrom<unknown>(undefined, NaN, -0, Infinity, () => 1, 1n, Symbol('s'))
    fc.assert(
      fc.property(fc.jsonValue(), bad, fc.nat(), (value, poison, pick) => {
        const holder = { value: JSON.parse(JSON.stringify(value)) as unknown }
        // walk to a random container and plant the poison there
        let target: Record<string, unknown> | unknown[] = holder
        let node: unknown = holder.value
        let steps = pick % 5
        while (steps-- > 0 && node !== null && typeof node === 'object') {
          const keys = Object.keys(node)
          if (keys.length === 0) break
          target = node as Record<string, unknown>
          node = (node as Record<string, unknown>)[keys[pick % keys.length]!]
        }
        if (Array.isArray(target)) target.push(poison)
        else (target as Record<string, unknown>).poison = poison
        expect(snapshotJsonValue(holder)).toBeUndefined()
        expect(isJsonValue(holder)).toBe(false)
      }),
    )
  })
})
