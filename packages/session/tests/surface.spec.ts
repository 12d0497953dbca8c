import { describe, expect, it } from 'vitest'
import {
  Session,
  SurfaceManager,
  foldSurface,
  isAppendSurfaceEvent,
  isReplacementSurfaceEvent,
  isSurfaceEligibleType,
  isSurfaceEvent,
  type AppendOptions,
} from '../src/index.js'
import { assistant, toolResult, user } from './helpers.js'

function usersAt(count: number): Session {
  const s = Session.create('s')
  for (let i = 0; i < count; i++) s.append('user/message', user(`u${i}`), { surfaceOp: 'append' })
  return s
}

const replace = (start: number, end: number, sourceEventSeqs?: number[]): AppendOptions => ({
  surfaceOp: { op: 'replace', start, end },
  ...(sourceEventSeqs ? { sourceEventSeqs } : {}),
})

describe('surface rules, failure paths in order', () => {
  it('1. contiguity (foldSurface / SurfaceManager)', () => {
    expect(() => foldSurface([{ type: 'x', seq: 1, time: 0, data: null }])).toThrow(
      'session event seq 1 is not contiguous; expected 0',
    )
    expect(() => new SurfaceManager([{ type: 'x', seq: 0, time: 0, data: null }], 5)).toThrow(
      'session event seq 0 is not contiguous; expected 5',
    )
  })

  it('2. log-only types cannot carry surfaceOp or sourceEventSeqs', () => {
    const s = usersAt(1)
    expect(() => s.append('turn/start', { turn: 1 }, { surfaceOp: 'append' })).toThrow(
      'session event "turn/start" is not surface-eligible and cannot carry surfaceOp',
    )
    expect(() => s.append('turn/start', { turn: 1 }, { sourceEventSeqs: [0] })).toThrow(
      'session event "turn/start" is not surface-eligible and cannot carry sourceEventSeqs',
    )
  })

  it('3. eligible types require a marker', () => {
    const s = Session.create('s')
    for (const type of ['user/message', 'assistant/message', 'tool/result']) {
      expect(() => s.append(type, {})).toThrow(
        `session event "${type}" is surface-eligible and requires a surfaceOp marker`,
      )
    }
  })

  it('4. invalid markers', () => {
    const s = usersAt(2)
    for (const bad of ['prepend', 1, [0, 1], null, true]) {
      expect(() => s.append('user/message', user('x'), { surfaceOp: bad as never })).toThrow(
        'session event "user/message" carries an invalid surfaceOp',
      )
    }
    for (const bad of [
      { op: 'replace', start: 0 },
      { op: 'replace', start: 0, end: 1, extra: 1 },
      { op: 'swap', start: 0, end: 1 },
      { op: 'replace', start: -1, end: 1 },
      { op: 'replace', start: 0, end: 1.5 },
      { op: 'replace', start: '0', end: 1 },
      {},
    ]) {
      expect(() => s.append('user/message', user('x'), { surfaceOp: bad as never, sourceEventSeqs: [0, 1] })).toThrow(
        'session event "user/message" carries an invalid replace surfaceOp',
      )
    }
  })

  it('5. replace lookup and order', () => {
    const s = usersAt(3)
    expect(() => s.append('user/message', user('x'), replace(7, 1, [1]))).toThrow(
      'surface replace: start seq 7 not found in surface',
    )
    expect(() => s.append('user/message', user('x'), replace(1, 9, [1]))).toThrow(
      'surface replace: end seq 9 not found in surface',
    )
    expect(() => s.append('user/message', user('x'), replace(2, 1, [1, 2]))).toThrow(
      'surface replace: start seq 2 (index 2) is after end seq 1 (index 1)',
    )
    // lookup comes before the sourceEventSeqs checks
    expect(() =>
      s.append('user/message', user('x'), {
        surfaceOp: { op: 'replace', start: 7, end: 1 },
        sourceEventSeqs: 'x' as never,
      }),
    ).toThrow('start seq 7 not found')
  })

  it('6. sourceEventSeqs rules', () => {
    const s = usersAt(2)
    const add = (sources: unknown, type = 'user/message', data: unknown = user('x')) =>
      s.append(type, data as never, { surfaceOp: 'append', sourceEventSeqs: sources as number[] })
    expect(() => add({ 0: 1 })).toThrow('sourceEventSeqs on event at seq 2 must be an array when present')
    expect(() => add([])).toThrow('sourceEventSeqs must not be empty except on assistant/message')
    expect(() => add([0, -1])).toThrow(
      'session event "user/message" sourceEventSeqs must densely contain non-negative safe integers',
    )
    expect(() => add([0, 1.5])).toThrow('sourceEventSeqs must densely contain non-negative safe integers')
    expect(() => add(['0'])).toThrow('sourceEventSeqs must densely contain non-negative safe integers')
    expect(() => add([1, 1])).toThrow('sourceEventSeqs must not contain duplicates')
    expect(() => add([0, 2])).toThrow('sourceEventSeqs must reference earlier events: 2 >= current seq 2')
    expect(s.seq).toBe(2)
    expect(add([], 'assistant/message', { turn: 1, step: 1, message: assistant('a') }).sourceEventSeqs).toEqual([])
  })

  it('6. holes are rejected on seeds (restore mode does not JSON-check)', () => {
    const sparse = [0]
    sparse.length = 2
    const seed = [
      { type: 'user/message', seq: 0, time: 0, data: user('a'), surfaceOp: 'append' },
      { type: 'user/message', seq: 1, time: 0, data: user('b'), surfaceOp: 'append' },
      { type: 'user/message', seq: 2, time: 0, data: user('c'), surfaceOp: 'append', sourceEventSeqs: sparse },
    ]
    expect(() => Session.fromRestore('s', seed, { version: 0, id: 's', createdAt: 0 })).toThrow(
      'invalid seed event at index 2: session event "user/message" sourceEventSeqs must densely contain non-negative safe integers',
    )
  })

  it('7. a replace must cite every shadowed node (example 2)', () => {
    const s = usersAt(4)
    expect(() => s.append('user/message', user('cp'), replace(1, 2, [1]))).toThrow(
      'surface replace: sourceEventSeqs must include every shadowed surface node; missing 2',
    )
    expect(() => s.append('user/message', user('cp'), replace(0, 3))).toThrow('missing 0, 1, 2, 3')
    s.append('user/message', user('cp'), replace(1, 2, [1, 2]))
    expect(s.surface.nodes).toEqual([0, 4, 3])
    expect(s.surface.replaceGeneration).toBe(1)
  })

  it('8. tool/result replacement restrictions', () => {
    const s = Session.create('s')
    s.append('user/message', user('u'), { surfaceOp: 'append' })
    s.append('tool/call', { turn: 1, step: 1, callId: 'c1' as never, name: 't', arguments: '{}' })
    const original = toolResult('c1', 'long output')
    s.append(
      'tool/result',
      { turn: 1, step: 1, message: original, meta: { size: 1 } },
      { surfaceOp: 'append', sourceEventSeqs: [1] },
    )
    s.append('user/message', user('v'), { surfaceOp: 'append' })
    const rewrite = (over: Record<string, unknown> = {}, content: unknown = [{ type: 'text', text: '[elided]' }]) => ({
      turn: 1,
      step: 1,
      message: { ...original, content: [{ ...original.content[0], content }] },
      meta: { size: 1 },
      ...over,
    })
    expect(() => s.append('tool/result', rewrite() as never, replace(2, 3, [2, 3]))).toThrow(
      'tool/result surface replacement must rewrite exactly one current node',
    )
    expect(() => s.append('tool/result', rewrite() as never, replace(0, 0, [0]))).toThrow(
      'tool/result surface replacement must target a current tool/result',
    )
    expect(() => s.append('tool/result', rewrite({ step: 2 }) as never, replace(2, 2, [2]))).toThrow(
      'tool/result surface replacement may change only content',
    )
    expect(() => s.append('tool/result', rewrite({ meta: { size: 2 } }) as never, replace(2, 2, [2]))).toThrow(
      'may change only content',
    )
    expect(() =>
      s.append('tool/result', rewrite({ error: { name: 'E', code: 'X' } }) as never, replace(2, 2, [2])),
    ).toThrow('may change only content')
    expect(() =>
      s.append('tool/result', rewrite({ message: { ...original, id: 'new' } }) as never, replace(2, 2, [2])),
    ).toThrow('may change only content')
    const isErrorFlip = {
      ...rewrite(),
      message: { ...original, content: [{ ...original.content[0], isError: true, content: [] }] },
    }
    expect(() => s.append('tool/result', isErrorFlip as never, replace(2, 2, [2]))).toThrow('may change only content')
    expect(() => s.append('tool/result', rewrite({}, {}) as never, replace(2, 2, [2]))).not.toThrow()
    expect(s.surface.nodes).toEqual([0, 4, 3])
  })
})

describe('surface state', () => {
  it('replaces are positional in the current order and shadowed events can never be targeted again', () => {
    const s = usersAt(3) // nodes 0 1 2
    s.append('user/message', user('r'), replace(0, 1, [0, 1])) // 3 2
    expect(s.surface.nodes).toEqual([3, 2])
    expect(() => s.append('user/message', user('x'), replace(0, 0, [0]))).toThrow(
      'surface replace: start seq 0 not found in surface',
    )
    s.append('user/message', user('tail'), { surfaceOp: 'append' }) // 3 2 4 (the rejected append used no seq)
    s.append('user/message', user('r2'), replace(2, 4, [2, 4])) // 3 5
    expect(s.surface.nodes).toEqual([3, 5])
    expect(s.surface.has(2)).toBe(false)
    expect(s.surface.has(5)).toBe(true)
    expect(s.surface.replaceGeneration).toBe(2)
  })

  it('{start: 2, end: 1} is valid after a replace reordered seqs', () => {
    const s = usersAt(3)
    s.append('user/message', user('r'), replace(0, 0, [0])) // nodes 3 1 2
    s.append('user/message', user('r'), replace(1, 1, [1])) // 3 4 2 — wait: replace 1 → nodes 3 4 2
    expect(s.surface.nodes).toEqual([3, 4, 2])
    const t = Session.create('t')
    t.append('user/message', user('a'), { surfaceOp: 'append' }) // 0
    t.append('user/message', user('b'), { surfaceOp: 'append' }) // 1
    t.append('user/message', user('c'), replace(0, 0, [0])) // nodes 2 1
    t.append('user/message', user('d'), replace(1, 1, [1])) // nodes 2 3
    // now start=2 end=3 in order; reorder case: nodes where a higher seq precedes a lower one
    t.append('user/message', user('e'), { surfaceOp: 'append' }) // 2 3 4
    t.append('user/message', user('f'), replace(2, 2, [2])) // 5 3 4
    t.append('user/message', user('g'), replace(5, 3, [5, 3])) // start 5 (index 0) before end 3 (index 1)
    expect(t.surface.nodes).toEqual([6, 4])
  })

  it('surface is one object; nodes is a frozen snapshot cached until the surface changes', () => {
    const s = usersAt(1)
    const surface = s.surface
    const nodes = surface.nodes
    expect(surface.nodes).toBe(nodes)
    expect(Object.isFrozen(nodes)).toBe(true)
    s.append('turn/start', { turn: 1 })
    expect(surface.nodes).toBe(nodes)
    s.append('user/message', user('b'), { surfaceOp: 'append' })
    expect(s.surface).toBe(surface)
    expect(surface.nodes).not.toBe(nodes)
    expect(nodes).toEqual([0])
  })

  it('foldSurface is pure and reports replacements; SurfaceManager folds a window', () => {
    const s = usersAt(3)
    s.append('user/message', user('r'), replace(1, 2, [1, 2]))
    const folded = foldSurface(s.events)
    expect(folded).toEqual({ nodes: [0, 3], replacements: [{ seq: 3, start: 1, end: 2, shadowedSeqs: [1, 2] }] })
    expect(Object.isFrozen(folded.nodes)).toBe(false)
    const win = new SurfaceManager(s.events.slice(2, 3), 2)
    expect(win.nodes).toEqual([2])
    expect(() => win.push(s.events[3]!)).toThrow('surface replace: start seq 1 not found in surface')
    expect(win.expectedSeq).toBe(3)
  })

  it('guards', () => {
    const s = usersAt(2)
    const a = s.events[0]!
    const r = s.append('user/message', user('r'), replace(0, 1, [0, 1]))
    const t = s.append('turn/start', { turn: 1 })
    expect(isSurfaceEligibleType('tool/result')).toBe(true)
    expect(isSurfaceEligibleType('assistant/chunk')).toBe(false)
    expect([isSurfaceEvent(a), isSurfaceEvent(r), isSurfaceEvent(t)]).toEqual([true, true, false])
    expect([isAppendSurfaceEvent(a), isAppendSurfaceEvent(r)]).toEqual([true, false])
    expect([isReplacementSurfaceEvent(a), isReplacementSurfaceEvent(r)]).toEqual([false, true])
    expect(isSurfaceEvent({ type: 'user/message', seq: 0, time: 0, data: null })).toBe(false)
  })

  it('a cited seq need not be a surface node', () => {
    const s = Session.create('s')
    s.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } })
    s.append('plugin/record', { any: true })
    expect(() =>
      s.append(
        'assistant/message',
        { turn: 1, step: 1, message: assistant('x') },
        { surfaceOp: 'append', sourceEventSeqs: [0, 1] },
      ),
    ).not.toThrow()
  })
})
