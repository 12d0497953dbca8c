import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createUserMessage, deepFreeze, isDeepFrozen, isLoopRequest, markLoopRequest } from '@bridle/llm'

/** A proxy over a plain object whose `ownKeys` trap counts how often the object is walked. */
function countingProxy<T extends object>(target: T): { proxy: T; visits: () => number } {
  let count = 0
  const proxy = new Proxy(target, {
    ownKeys(t) {
      count++
      return Reflect.ownKeys(t)
    },
  })
  return { proxy, visits: () => count }
}

describe('deepFreeze: the already-frozen fast path', () => {
  it('(a) does not revisit a subtree an earlier call froze', () => {
    const { proxy, visits } = countingProxy({ role: 'user', content: [{ type: 'text', text: 'hi' }] })
    deepFreeze(proxy)
    const after = visits()
    expect(after).toBeGreaterThan(0)
    const request = deepFreeze({ history: [proxy], system: 'x' })
    expect(visits()).toBe(after)
    expect(Object.isFrozen(request.history)).toBe(true)
    deepFreeze({ again: { history: [proxy] } })
    expect(visits()).toBe(after)
  })

  it('freezing a request around N pre-frozen messages visits none of them', () => {
    const probes = Array.from({ length: 50 }, (_, i) => countingProxy({ i, content: [{ text: String(i) }] }))
    for (const p of probes) deepFreeze(p.proxy)
    const before = probes.map((p) => p.visits())
    deepFreeze({ messages: probes.map((p) => p.proxy), tools: [{ name: 't' }] })
    expect(probes.map((p) => p.visits())).toEqual(before)
  })

  it('records only the root of each call: an interior object is walked again, which changes nothing', () => {
    const { proxy, visits } = countingProxy({ text: 'inner' })
    const root = deepFreeze({ outer: { inner: proxy } })
    expect(isDeepFrozen(root)).toBe(true)
    expect(isDeepFrozen(root.outer)).toBe(false)
    expect(isDeepFrozen(proxy)).toBe(false)
    const once = visits()
    // The interior object is frozen to the leaves already: a later call walks it again and records that root.
    expect(deepFreeze(root.outer)).toBe(root.outer)
    const twice = visits()
    expect(twice).toBeGreaterThan(once)
    expect(isDeepFrozen(root.outer)).toBe(true)
    deepFreeze({ again: root.outer })
    expect(visits()).toBe(twice)
  })

  it('(b) walks an object that was only shallowly frozen elsewhere, then records it', () => {
    const child = { mutable: [1, 2] }
    const parent = Object.freeze({ child })
    expect(isDeepFrozen(parent)).toBe(false)
    deepFreeze(parent)
    expect(Object.isFrozen(child)).toBe(true)
    expect(Object.isFrozen(child.mutable)).toBe(true)
    expect(isDeepFrozen(parent)).toBe(true)
    expect(() => {
      ;(child.mutable as number[]).push(3)
    }).toThrow(TypeError)
  })

  it('(c) handles cycles', () => {
    const a: Record<string, unknown> = { name: 'a' }
    const b: Record<string, unknown> = { name: 'b', a }
    a.b = b
    a.self = a
    expect(deepFreeze(a)).toBe(a)
    expect(Object.isFrozen(a) && Object.isFrozen(b)).toBe(true)
  })

  it('(d) leaves an AbortSignal inside a frozen request cancellable', () => {
    const controller = new AbortController()
    const request = deepFreeze({ provider: 'p', signal: controller.signal, messages: [] })
    expect(Object.isFrozen(request)).toBe(true)
    expect(Object.isFrozen(controller.signal)).toBe(false)
    let fired = 0
    request.signal.addEventListener('abort', () => fired++)
    controller.abort(new Error('stop'))
    expect(request.signal.aborted).toBe(true)
    expect(fired).toBe(1)
  })

  it('recognises a signal by its toString tag (another realm)', () => {
    const foreign = { listeners: [] as unknown[] }
    Object.defineProperty(foreign, Symbol.toStringTag, { value: 'AbortSignal' })
    Object.setPrototypeOf(foreign, Object.create({}))
    deepFreeze({ signal: foreign })
    expect(Object.isFrozen(foreign)).toBe(false)
  })

  it('(e) freezes a 100 000-deep linked list without RangeError', () => {
    let list: { next: unknown; value: number } | null = null
    for (let i = 0; i < 100_000; i++) list = { next: list, value: i }
    expect(() => deepFreeze(list)).not.toThrow()
    let node = list as { next: unknown } | null
    let frozen = 0
    while (node) {
      if (Object.isFrozen(node)) frozen++
      node = node.next as { next: unknown } | null
    }
    expect(frozen).toBe(100_000)
  })

  it('descends symbol keys', () => {
    const key = Symbol('k')
    const inner = { x: 1 }
    deepFreeze({ [key]: inner })
    expect(Object.isFrozen(inner)).toBe(true)
  })

  it('neither invokes nor descends accessors', () => {
    let calls = 0
    const hidden = { y: 1 }
    const obj = {
      get lazy() {
        calls++
        return hidden
      },
    }
    deepFreeze(obj)
    expect(calls).toBe(0)
    expect(Object.isFrozen(obj)).toBe(true)
    expect(Object.isFrozen(hidden)).toBe(false)
  })

  it('leaves typed arrays, buffers and functions untouched; freezes Map/Set as objects only', () => {
    const bytes = new Uint8Array([1, 2, 3])
    const buffer = new ArrayBuffer(4)
    const fn = Object.assign(() => 1, { prop: {} })
    const entry = { v: 1 }
    const map = new Map([['k', entry]])
    deepFreeze({ bytes, buffer, fn, map })
    expect(Object.isFrozen(bytes)).toBe(false)
    bytes[0] = 9
    expect(bytes[0]).toBe(9)
    expect(Object.isFrozen(fn)).toBe(false)
    expect(Object.isFrozen(map)).toBe(true)
    expect(Object.isFrozen(entry)).toBe(false)
  })

  it('records nothing when Object.freeze throws midway, and propagates the error', () => {
    const exotic = new Proxy({}, { preventExtensions: () => false })
    const sibling = { s: 1 }
    const root = { sibling, exotic }
    expect(() => deepFreeze(root)).toThrow(TypeError)
    expect(isDeepFrozen(root)).toBe(false)
    expect(isDeepFrozen(sibling)).toBe(false)
  })

  it('shares its registry through globalThis', () => {
    const registry = (globalThis as Record<symbol, unknown>)[Symbol.for('bridle.llm.deepFrozen')]
    expect(registry).toBeInstanceOf(WeakSet)
    const message = createUserMessage('hi')
    expect((registry as WeakSet<object>).has(message)).toBe(true)
  })

  it('returns primitives as-is', () => {
    expect(deepFreeze(3)).toBe(3)
    expect(deepFreeze(null)).toBe(null)
    expect(deepFreeze('s')).toBe('s')
  })

  it('property: every reachable JSON object ends frozen', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = structuredClone(value)
        deepFreeze(copy)
        const stack: unknown[] = [copy]
        while (stack.length) {
          const v = stack.pop()
          if (typeof v === 'object' && v !== null) {
            if (!Object.isFrozen(v)) return false
            stack.push(...Object.values(v))
          }
        }
        return true
      }),
    )
  })
})

describe('loop-request marker', () => {
  it('marks the exact object; clones stay unmarked; marking does not freeze', () => {
    const request = { provider: 'p', model: 'm', messages: [] }
    expect(isLoopRequest(request)).toBe(false)
    expect(markLoopRequest(request)).toBe(request)
    expect(isLoopRequest(request)).toBe(true)
    expect(isLoopRequest({ ...request })).toBe(false)
    expect(Object.isFrozen(request)).toBe(false)
    expect(isLoopRequest(null)).toBe(false)
    expect((globalThis as Record<symbol, unknown>)[Symbol.for('bridle.llm.loopRequests')]).toBeInstanceOf(WeakSet)
  })
})
