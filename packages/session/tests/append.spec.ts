import { afterEach, describe, expect, it, vi } from 'vitest'
import { Session } from '../src/index.js'
import { header, user } from './helpers.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('append pipeline, failure paths', () => {
  it('rejects non-JSON data with the exact message and commits nothing (example 3)', () => {
    const s = Session.create('s')
    let error: unknown
    try {
      s.append('todo/write', { todos: [{ content: 'x', status: 'pending', weight: NaN }] } as never)
    } catch (e) {
      error = e
    }
    expect((error as Error).message).toBe('session event "todo/write" carries non-JSON-serializable data')
    expect(((error as Error).cause as Error).message).toBe('$.todos[0].weight: NaN is not a finite number')
    expect(s.events).toHaveLength(0)
    expect(s.seq).toBe(0)
  })

  it('rejects the legacy vocabulary', () => {
    const s = Session.create('s')
    expect(() => s.append('request/header-delta', {})).toThrow(
      'session event "request/header-delta" uses unsupported legacy request/header-delta format',
    )
    expect(() => s.append('request/header', { header: header(), reason: 'fallback' } as never)).toThrow(
      'session event "request/header" uses unsupported legacy request/header reason "fallback"',
    )
    expect(s.seq).toBe(0)
  })

  it('rejects non-JSON surface metadata', () => {
    const s = Session.create('s')
    s.append('user/message', user('a'), { surfaceOp: 'append' })
    expect(() => s.append('user/message', user('b'), { surfaceOp: 'append', sourceEventSeqs: [NaN] })).toThrow(
      'session event "user/message" carries non-JSON-serializable surface metadata',
    )
    expect(() => s.append('user/message', user('b'), { surfaceOp: { op: 'replace', start: 0, end: -0 } })).toThrow(
      'session event "user/message" carries non-JSON-serializable surface metadata',
    )
    expect(s.seq).toBe(1)
  })

  it('checks data before legacy vocabulary before metadata before the surface', () => {
    const s = Session.create('s')
    expect(() => s.append('request/header-delta', { x: undefined }, { surfaceOp: 'append' })).toThrow(
      'carries non-JSON-serializable data',
    )
    expect(() => s.append('request/header-delta', {}, { sourceEventSeqs: [NaN] })).toThrow(
      'legacy request/header-delta format',
    )
    expect(() => s.append('turn/start', { turn: 1 }, { sourceEventSeqs: [NaN] })).toThrow(
      'non-JSON-serializable surface metadata',
    )
  })

  it('reads data and each option once', () => {
    const s = Session.create('s')
    let dataReads = 0
    let optReads = 0
    const data = Object.defineProperty({}, 'turn', { enumerable: true, get: () => ++dataReads })
    const opts = Object.defineProperty({}, 'surfaceOp', { enumerable: true, get: () => (optReads++, undefined) })
    s.append('turn/start', data as never, opts)
    expect(dataReads).toBe(1)
    expect(optReads).toBe(1)
    expect(s.events[0]!.data).toEqual({ turn: 1 })
  })
})

describe('append pipeline, committed events', () => {
  it('assigns seq = length and time = Date.now(); returns the frozen event that is in the log', () => {
    vi.useFakeTimers()
    vi.setSystemTime(1234)
    const s = Session.create('s')
    const a = s.append('turn/start', { turn: 1 })
    vi.setSystemTime(1000) // not monotonic
    const b = s.append('step/start', { turn: 1, step: 1 })
    expect([a.seq, b.seq]).toEqual([0, 1])
    expect([a.time, b.time]).toEqual([1234, 1000])
    expect(s.events[1]).toBe(b)
    expect(Object.isFrozen(a)).toBe(true)
    expect(Object.isFrozen(a.data)).toBe(true)
    expect(s.seq).toBe(2)
  })

  it('copies data: later writes to the caller object are not seen', () => {
    const s = Session.create('s')
    const data = { todos: [{ content: 'x', status: 'pending' as const }] }
    const e = s.append('todo/write', data)
    data.todos[0]!.content = 'changed'
    expect(e.data.todos[0]!.content).toBe('x')
    expect(() => {
      ;(e.data.todos as unknown as unknown[]).push(1)
    }).toThrow(TypeError)
  })

  it('stores only surfaceOp and sourceEventSeqs from the options; other keys are ignored', () => {
    const s = Session.create('s')
    const e = s.append('user/message', user('a'), { surfaceOp: 'append', ignorable: true, seq: 9 } as never)
    expect(Object.keys(e).sort()).toEqual(['data', 'seq', 'surfaceOp', 'time', 'type'])
    expect(e.seq).toBe(0)
  })

  it('accepts any type string and null data', () => {
    const s = Session.create('s')
    expect(s.append('plugin/custom', null).data).toBeNull()
  })

  it('events is a frozen array cached until the next append; older arrays never grow', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    const first = s.events
    expect(s.events).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    expect(first).toHaveLength(1)
    expect(s.events).not.toBe(first)
    expect(s.events).toHaveLength(2)
  })

  it('a rejected surface plan commits nothing and leaves the surface unchanged', () => {
    const s = Session.create('s')
    s.append('user/message', user('a'), { surfaceOp: 'append' })
    const nodes = s.surface.nodes
    expect(() => s.append('user/message', user('b'), { surfaceOp: { op: 'replace', start: 0, end: 0 } })).toThrow(
      'surface replace: sourceEventSeqs must include every shadowed surface node; missing 0',
    )
    expect(s.seq).toBe(1)
    expect(s.surface.nodes).toBe(nodes)
    expect(s.surface.replaceGeneration).toBe(0)
  })

  it('append does not validate message shapes, so such a log fails to replay', () => {
    const s = Session.create('s')
    s.append('user/message', { text: 'no id' } as never, { surfaceOp: 'append' })
    expect(() => Session.create('s', s.events as never)).toThrow(
      'seed user/message at index 0 lacks an identified message',
    )
  })
})
