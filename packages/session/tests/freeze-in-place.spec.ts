import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deepFreeze, isDeepFrozen } from '@bridle/llm'
import { freezeInPlace } from '../src/json/freeze-in-place.js'

const isFrozenDeep = (value: unknown, seen = new Set<object>()): boolean => {
  if (typeof value !== 'object' || value === null || seen.has(value)) return true
  seen.add(value)
  return Object.isFrozen(value) && Object.values(value).every((child) => isFrozenDeep(child, seen))
}

describe('freezeInPlace (restore-mode freezer)', () => {
  it('freezes parsed JSON to the leaves in place and returns the same object', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        const parsed: unknown = JSON.parse(JSON.stringify(json) ?? 'null')
        expect(freezeInPlace(parsed)).toBe(parsed)
        expect(isFrozenDeep(parsed)).toBe(true)
        expect(parsed).toEqual(JSON.parse(JSON.stringify(json) ?? 'null'))
      }),
    )
  })

  it('records nothing in the deepFreeze registry, and leaves a recorded root alone', () => {
    const shared = deepFreeze({ a: [1] })
    const root = { shared, own: { b: 2 } }
    freezeInPlace(root)
    expect(Object.isFrozen(root.own)).toBe(true)
    expect(isDeepFrozen(root)).toBe(false)
    expect(isDeepFrozen(root.own)).toBe(false)
    const recorded = deepFreeze({ c: 3 })
    expect(freezeInPlace(recorded)).toBe(recorded)
  })

  it('walks an object frozen only shallowly elsewhere, and shared subtrees', () => {
    const mutable = { deep: [1] }
    const shallow = Object.freeze({ mutable })
    const shared = { n: 1 }
    const root = { a: shallow, b: [shallow, shared, shared] }
    freezeInPlace(root)
    expect(isFrozenDeep(root)).toBe(true)
    expect(Object.isFrozen(mutable.deep)).toBe(true)
  })

  it('descends own keys only: an enumerable property added to Object.prototype is neither walked nor frozen', () => {
    const inherited = { mutable: true }
    const root = { own: { n: 1 }, list: [{ m: 2 }] }
    Object.defineProperty(Object.prototype, 'polluted', {
      value: inherited,
      enumerable: true,
      writable: true,
      configurable: true,
    })
    try {
      freezeInPlace(root)
    } finally {
      delete (Object.prototype as { polluted?: unknown }).polluted
    }
    expect(isFrozenDeep(root)).toBe(true)
    expect(Object.isFrozen(inherited)).toBe(false)
  })

  it('finishes a tree whose fresh walk stopped half-way (a frozen node or another class deep inside)', () => {
    const tail = { after: { x: 1 } }
    const mixed = {
      first: { a: [1, { b: 2 }] },
      middle: new Map([[1, { c: 3 }]]),
      frozen: Object.freeze({ d: {} }),
      tail,
    }
    freezeInPlace(mixed)
    expect(Object.isFrozen(mixed.first.a[1])).toBe(true)
    expect(Object.isFrozen(mixed.frozen.d)).toBe(true)
    expect(Object.isFrozen(tail.after)).toBe(true)
  })

  it('handles cycles, null-prototype objects and 50 000-deep nesting', () => {
    const a: Record<string, unknown> = Object.create(null)
    a.self = a
    a.list = [a, { back: a }]
    freezeInPlace(a)
    expect(isFrozenDeep(a)).toBe(true)
    let deep: unknown[] = []
    const top = deep
    for (let i = 0; i < 50_000; i++) deep = (deep[0] = []) as unknown[]
    freezeInPlace(top)
    expect(Object.isFrozen(deep)).toBe(true)
  })

  it('walks other objects like deepFreeze: accessors not invoked, signals and buffers untouched', () => {
    class Box {
      inner = { x: 1 }
      get computed(): never {
        throw new Error('getter invoked')
      }
    }
    let reads = 0
    const withGetter = Object.create(Box.prototype) as Record<string, unknown>
    Object.defineProperty(withGetter, 'lazy', { enumerable: true, get: () => (reads++, { y: 1 }) })
    Object.defineProperty(withGetter, 'data', { enumerable: true, value: { z: 1 } })
    const box = new Box()
    const controller = new AbortController()
    const bytes = new Uint8Array(2)
    freezeInPlace({ box, withGetter, signal: controller.signal, bytes })
    expect(reads).toBe(0)
    expect(Object.isFrozen(box.inner)).toBe(true)
    expect(Object.isFrozen(withGetter.data)).toBe(true)
    expect(Object.isFrozen(controller.signal)).toBe(false)
    expect(Object.isFrozen(bytes)).toBe(false)
    controller.abort()
    expect(controller.signal.aborted).toBe(true)
  })
})
