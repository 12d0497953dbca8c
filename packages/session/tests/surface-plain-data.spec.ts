/**
 * The surface reads markers and tool results as JSON data. A marker is a string or a plain object (a JSON reader may
 * build objects without a prototype); an object of some class is not a marker, whatever fields it carries. A
 * `tool/result` replacement may change only the result's content: a change of type anywhere else (a number that
 * becomes an object, an array that becomes an object, null, a renamed key) is a change like any other.
 */
import { describe, expect, it } from 'vitest'
import { foldSurface, SurfaceManager, type AnySessionEvent } from '../src/index.js'
import { toolResult, user } from './helpers.js'

const event = (seq: number, type: string, data: unknown, extra: Partial<AnySessionEvent> = {}): AnySessionEvent =>
  ({ seq, type, time: 1000 + seq, data, ...extra }) as AnySessionEvent

const twoPrompts = (): AnySessionEvent[] => [
  event(0, 'user/message', user('first'), { surfaceOp: 'append' }),
  event(1, 'user/message', user('second'), { surfaceOp: 'append' }),
]
const summaryWith = (surfaceOp: unknown) =>
  event(2, 'user/message', user('summary'), { surfaceOp: surfaceOp as never, sourceEventSeqs: [0, 1] })

describe('a surfaceOp is plain data', () => {
  it('an object of a class, or with any prototype but Object’s, is refused even when its fields look right', () => {
    class ReplaceOp {
      op = 'replace'
      start = 0
      end = 1
    }
    const fields = { op: 'replace', start: 0, end: 1 }
    for (const marker of [
      new ReplaceOp(),
      Object.assign(Object.create({ inherited: true }), fields),
      Object.assign(new Date(0), fields),
      Object.assign(new Map(), fields),
    ]) {
      const manager = new SurfaceManager(twoPrompts())
      expect(() => manager.push(summaryWith(marker))).toThrow(
        'session event "user/message" carries an invalid surfaceOp',
      )
      expect(manager.nodes).toEqual([0, 1])
    }
  })

  it('an object without a prototype, as some JSON readers build, is a valid replace', () => {
    const marker = Object.assign(Object.create(null), { op: 'replace', start: 0, end: 1 })
    expect(foldSurface([...twoPrompts(), summaryWith(marker)])).toEqual({
      nodes: [2],
      replacements: [{ seq: 2, start: 0, end: 1, shadowedSeqs: [0, 1] }],
    })
  })
})

describe('tool/result replacement: a change of type outside the content is a change', () => {
  const result = toolResult('call-1', 'a long tool output')
  const resultData = (meta: unknown, text: string) => ({
    turn: 1,
    step: 1,
    message: { ...result, content: [{ ...result.content[0]!, content: [{ type: 'text', text }] }] },
    meta,
  })
  const logWith = (meta: unknown): AnySessionEvent[] => [
    event(0, 'user/message', user('read it'), { surfaceOp: 'append' }),
    event(1, 'tool/call', { turn: 1, step: 1, callId: 'call-1', name: 'read_file', arguments: '{}' }),
    event(2, 'tool/result', resultData(meta, 'a long tool output'), { surfaceOp: 'append', sourceEventSeqs: [1] }),
  ]
  const shortened = (meta: unknown) =>
    event(3, 'tool/result', resultData(meta, 'short'), {
      surfaceOp: { op: 'replace', start: 2, end: 2 },
      sourceEventSeqs: [2],
    })

  it('the content alone may be shortened, whatever the metadata holds', () => {
    for (const meta of [5, 'x', null, [], {}, ['a'], { a: 1 }, { 0: 'x' }]) {
      const manager = new SurfaceManager(logWith(meta))
      expect(manager.push(shortened(structuredClone(meta)))).toMatchObject({ kind: 'replace', shadowedSeqs: [2] })
    }
  })

  it.each([
    ['a number that becomes an object', 5, {}],
    ['an object that becomes a number', {}, 5],
    ['null that becomes an object', null, {}],
    ['an object that becomes null', {}, null],
    ['an object that becomes a string with the same indexed characters', { 0: 'x' }, 'x'],
    ['a string that becomes such an object', 'x', { 0: 'x' }],
    ['an empty array that becomes an empty object', [], {}],
    ['an empty object that becomes an empty array', {}, []],
    ['an array that becomes an object with the same indices', ['a'], { 0: 'a' }],
    ['a key renamed, the value and the key count kept', { a: 1 }, { b: 1 }],
    // JSON.parse makes "__proto__" an own key; renamed, the other side's inherited __proto__ must not stand in for it
    ['a parsed "__proto__" key renamed', JSON.parse('{"__proto__": {}}'), { b: {} }],
  ])('%s', (_, before, after) => {
    const manager = new SurfaceManager(logWith(before))
    expect(() => manager.push(shortened(after))).toThrow('tool/result surface replacement may change only content')
    expect(manager.nodes).toEqual([0, 2])
  })
})
