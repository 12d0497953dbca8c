/**
 * `SurfaceManager` is the public way to fold a log (or a window of one) into the model-visible history, event by
 * event. What it must guarantee: a rejected event changes nothing, snapshots never change under the caller, and a
 * `tool/result` replacement may rewrite only the result's content (a compaction that shortens a tool output), never
 * which call it answers, its error flag, its metadata or any other block.
 */
import fc from 'fast-check'
import type { AnySessionEvent } from '../src/index.js'
import { describe, expect, it } from 'vitest'
import { SurfaceManager } from '../src/index.js'
import { toolResult, user } from './helpers.js'

const event = (seq: number, type: string, data: unknown, extra: Partial<AnySessionEvent> = {}): AnySessionEvent =>
  ({ seq, type, time: 1000 + seq, data, ...extra }) as AnySessionEvent

const result = toolResult('call-1', 'a very long tool output')
const resultData = {
  turn: 1,
  step: 1,
  message: { ...result, content: [...result.content, { type: 'text', text: 'second block' }] },
  meta: { bytes: 23, path: 'notes.txt' },
}

/** user prompt, the call, its result: the result is surface node 2. */
const base = (): AnySessionEvent[] => [
  event(0, 'user/message', user('read the notes'), { surfaceOp: 'append' }),
  event(1, 'tool/call', { turn: 1, step: 1, callId: 'call-1', name: 'read_file', arguments: '{}' }),
  event(2, 'tool/result', resultData, { surfaceOp: 'append', sourceEventSeqs: [1] }),
]

const rewriteOf = (data: unknown) =>
  event(3, 'tool/result', data, { surfaceOp: { op: 'replace', start: 2, end: 2 }, sourceEventSeqs: [2] })

type Path = (string | number)[]

/** Every path into a JSON tree (objects and arrays), the root excluded. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return []
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value)
  return keys.flatMap((key) => [
    [...prefix, key],
    ...pathsOf((value as Record<string | number, unknown>)[key], [...prefix, key]),
  ])
}

/** A deep copy of `data` with the value at `path` replaced, removed, or given an extra member. */
function edit(data: unknown, path: Path, how: 'replace' | 'remove' | 'extend'): unknown {
  const copy = structuredClone(data) as Record<string | number, unknown>
  let parent: Record<string | number, unknown> = copy
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
  const last = path.at(-1)!
  const target = parent[last]
  if (how === 'remove' && !Array.isArray(parent)) delete parent[last]
  else if (how === 'extend' && typeof target === 'object' && target !== null && !Array.isArray(target))
    (target as Record<string, unknown>).extra = 1
  else parent[last] = { edited: JSON.stringify(target) }
  return copy
}

const CONTENT: Path = ['message', 'content', 0, 'content']
const underContent = (path: Path) =>
  path.length >= CONTENT.length && CONTENT.every((key, i) => String(path[i]) === String(key))

describe('tool/result replacement may change only the content of the result', () => {
  it('for an edit anywhere in the result: accepted exactly when it lies inside that content (property)', () => {
    const paths = pathsOf(resultData)
    fc.assert(
      fc.property(
        fc.constantFrom(...paths),
        fc.constantFrom('replace', 'remove', 'extend') as fc.Arbitrary<'replace' | 'remove' | 'extend'>,
        (path, how) => {
          const edited = edit(resultData, path, how)
          fc.pre(JSON.stringify(edited) !== JSON.stringify(resultData))
          const manager = new SurfaceManager(base())
          const push = () => manager.push(rewriteOf(edited))
          // the content itself may be rewritten, not removed: a result always has one
          const contentOnly = underContent(path) && !(how === 'remove' && path.length === CONTENT.length)
          if (contentOnly) {
            expect(push()).toMatchObject({ kind: 'replace', seq: 3, shadowedSeqs: [2] })
            expect(manager.nodes).toEqual([0, 3])
          } else {
            expect(push).toThrow('tool/result surface replacement may change only content')
            expect(manager.nodes).toEqual([0, 2])
            expect(manager.expectedSeq).toBe(3)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('the same key names elsewhere do not open a door: a second block, a member named content, the message itself', () => {
    for (const path of [
      ['message', 'content', 1, 'text'],
      ['message', 'content', 0, 'toolCallId'],
      ['message', 'content', 0, 'type'],
      ['message', 'source'],
      ['meta', 'bytes'],
      ['turn'],
    ] as Path[]) {
      const manager = new SurfaceManager(base())
      expect(() => manager.push(rewriteOf(edit(resultData, path, 'replace')))).toThrow('may change only content')
    }
    const withContentKey = { ...resultData, content: 'not the result content' }
    expect(() => new SurfaceManager(base()).push(rewriteOf(withContentKey))).toThrow('may change only content')
    // metadata that nests the same path (under keys of any name, even "undefined") is metadata, not content
    const nested = (text: string) => ({
      ...resultData,
      meta: { undefined: { message: { content: [{ content: [{ type: 'text', text }] }] } } },
    })
    const manager = new SurfaceManager([
      ...base().slice(0, 2),
      { ...base()[2]!, data: nested('kept') } as AnySessionEvent,
    ])
    expect(() => manager.push(rewriteOf(nested('changed')))).toThrow('may change only content')
  })
})

describe('SurfaceManager', () => {
  it('folds a log, and a rejected event changes nothing: not the nodes, the replacements, the generation or the next seq', () => {
    const manager = new SurfaceManager(base())
    const before = { nodes: manager.nodes, replacements: manager.replacements, generation: manager.replaceGeneration }
    expect(before.nodes).toEqual([0, 2])
    const bad = [
      event(4, 'user/message', user('x'), { surfaceOp: 'append' }), // not contiguous
      event(3, 'user/message', user('x')), // no marker
      event(3, 'user/message', user('x'), { surfaceOp: { op: 'replace', start: 1, end: 1 }, sourceEventSeqs: [1] }), // not a node
      event(3, 'user/message', user('x'), { surfaceOp: { op: 'replace', start: 0, end: 2 }, sourceEventSeqs: [0] }), // cites too little
    ]
    for (const candidate of bad) {
      expect(() => manager.push(candidate)).toThrow()
      expect(manager.nodes).toBe(before.nodes)
      expect(manager.replacements).toEqual(before.replacements)
      expect(manager.replaceGeneration).toBe(before.generation)
      expect(manager.expectedSeq).toBe(3)
    }
    expect(manager.push(event(3, 'turn/end', { turn: 1, reason: { kind: 'completed' } }))).toEqual({ kind: 'none' })
    expect(manager.nodes).toBe(before.nodes) // a log-only event keeps the snapshot
    expect(manager.expectedSeq).toBe(4)
  })

  it('a summary replacing a range: plan, nodes, membership, replacements and generation', () => {
    const manager = new SurfaceManager(base())
    const summary = event(3, 'user/message', user('summary'), {
      surfaceOp: { op: 'replace', start: 0, end: 2 },
      sourceEventSeqs: [0, 2],
    })
    expect(manager.push(summary)).toEqual({
      kind: 'replace',
      seq: 3,
      start: 0,
      end: 2,
      startIndex: 0,
      endIndex: 1,
      shadowedSeqs: [0, 2],
    })
    expect(manager.nodes).toEqual([3])
    expect([manager.has(0), manager.has(2), manager.has(3)]).toEqual([false, false, true])
    expect(manager.replaceGeneration).toBe(1)
    const replacements = manager.replacements
    expect(replacements).toEqual([{ seq: 3, start: 0, end: 2, shadowedSeqs: [0, 2] }])
    expect(
      Object.isFrozen(replacements) &&
        Object.isFrozen(replacements[0]) &&
        Object.isFrozen(replacements[0]!.shadowedSeqs),
    ).toBe(true)
    manager.push(event(4, 'user/message', user('next'), { surfaceOp: 'append' }))
    expect(replacements).toHaveLength(1) // an earlier snapshot never grows
    expect(manager.nodes).toEqual([3, 4])
    expect(manager.replaceGeneration).toBe(1)
  })

  it('a window over a later part of a log: seqs start at baseSeq, earlier nodes are unknown to it', () => {
    const log = [...base(), event(3, 'user/message', user('more'), { surfaceOp: 'append' })]
    const window = new SurfaceManager(log.slice(2), 2)
    expect(window.baseSeq).toBe(2)
    expect(window.nodes).toEqual([2, 3])
    expect(window.expectedSeq).toBe(4)
    const rewrite = rewriteOf(structuredClone(resultData))
    expect(() =>
      window.push({
        ...rewrite,
        seq: 4,
        surfaceOp: { op: 'replace', start: 0, end: 0 },
        sourceEventSeqs: [0],
      } as AnySessionEvent),
    ).toThrow('surface replace: start seq 0 not found in surface')
    const shortened = structuredClone(resultData)
    shortened.message.content[0] = {
      ...shortened.message.content[0]!,
      content: [{ type: 'text', text: '[shortened]' }],
    } as never
    expect(window.push({ ...rewriteOf(shortened), seq: 4 } as AnySessionEvent)).toMatchObject({
      kind: 'replace',
      shadowedSeqs: [2],
    })
    expect(window.nodes).toEqual([4, 3])
  })
})
