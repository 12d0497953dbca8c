import { describe, expect, it } from 'vitest'
import { Session, type AnySessionEvent } from '../src/index.js'
import { assistant, header, toolResult, user } from './helpers.js'

const ev = (seq: number, type: string, data: unknown, extra: Record<string, unknown> = {}) => ({
  type,
  seq,
  time: 1,
  data,
  ...extra,
})
const u = (seq: number) => ev(seq, 'user/message', user(`u${seq}`), { surfaceOp: 'append' })
const both = (seed: unknown[]) => [
  () => Session.create('s', seed),
  () => Session.fromRestore('s', seed, { version: 0, id: 's', createdAt: 1 }),
]

describe('seed checks, failure paths', () => {
  it('snapshot mode: a non-JSON slot', () => {
    expect(() => Session.create('s', [u(0), ev(1, 'x', { n: undefined })])).toThrow(
      'seed event at index 1 is not losslessly JSON-serializable',
    )
  })

  it('rejects the legacy request/header-delta type before the envelope check', () => {
    for (const make of both([{ type: 'request/header-delta', bogus: true }])) {
      expect(make).toThrow('seed event at index 0 uses unsupported legacy request/header-delta format')
    }
  })

  it.each([
    ['extra own key', { type: 'x', seq: 0, time: 0, data: null, extra: 1 }],
    ['non-string type', { type: 1, seq: 0, time: 0, data: null }],
    ['negative seq', { type: 'x', seq: -1, time: 0, data: null }],
    ['fractional time', { type: 'x', seq: 0, time: 0.5, data: null }],
    ['missing data', { type: 'x', seq: 0, time: 0 }],
    ['ignorable false', { type: 'x', seq: 0, time: 0, data: null, ignorable: false }],
    ['not an object', 'event'],
  ])('envelope: %s', (_name, event) => {
    for (const make of both([event])) expect(make).toThrow('seed event at index 0 has an invalid event envelope')
  })

  it('accepts a negative time and ignorable: true in seeds', () => {
    const s = Session.create('s', [{ type: 'plugin/x', seq: 0, time: -5, data: null, ignorable: true }])
    expect(s.events[0]).toEqual({ type: 'plugin/x', seq: 0, time: -5, data: null, ignorable: true })
  })

  it.each([
    [
      { header: { config: { provider: '', model: 'm' } }, reason: 'initial' },
      'seed request/header at index 0 lacks provider/model',
    ],
    [{ header: 'h', reason: 'initial' }, 'seed request/header at index 0 lacks provider/model'],
    [
      { header: { config: { provider: 'p', model: 'm', reasoningEffort: '' } }, reason: 'initial' },
      'seed request/header at index 0 has an invalid reasoningEffort',
    ],
    [
      { header: { config: { provider: 'p', model: 'm' }, adapterDefaults: { maxTokens: true } }, reason: 'initial' },
      'seed request/header at index 0 has invalid adapterDefaults',
    ],
    [
      {
        header: { config: { provider: 'p', model: 'm', maxTokens: 5 }, adapterDefaults: { maxTokens: false } },
        reason: 'initial',
      },
      'has invalid adapterDefaults',
    ],
    [
      {
        header: { config: { provider: 'p', model: 'm', maxTokens: 5 }, adapterDefaults: { other: true } },
        reason: 'initial',
      },
      'has invalid adapterDefaults',
    ],
    [
      { header: { config: { provider: 'p', model: 'm' }, adapterDefaults: [] }, reason: 'initial' },
      'has invalid adapterDefaults',
    ],
    [
      { header: header(), reason: 'fallback' },
      'seed event at index 0 uses unsupported legacy request/header reason "fallback"',
    ],
  ])('request/header %#', (data, message) => {
    for (const make of both([ev(0, 'request/header', data)])) expect(make).toThrow(message)
  })

  it('message shape, rule by rule', () => {
    const cases: [string, unknown, string][] = [
      [
        'user/message',
        { role: 'user', content: [], source: { kind: 'user' } },
        'seed user/message at index 0 lacks an identified message',
      ],
      [
        'user/message',
        { id: 'a', role: 'assistant', content: [], source: { kind: 'user' } },
        'seed user/message at index 0 message must have role "user"',
      ],
      [
        'user/message',
        { id: 'a', role: 'user', content: [], source: {} },
        'seed user/message at index 0 message has invalid source',
      ],
      [
        'user/message',
        { id: 'a', role: 'user', content: 'x', source: { kind: 'user' } },
        'seed user/message at index 0 message has invalid content',
      ],
      [
        'assistant/message',
        { message: { id: 'a', role: 'assistant', content: [], source: { kind: 'user' } } },
        'seed assistant/message at index 0 message must have model source',
      ],
      [
        'assistant/message',
        { message: { id: 'a', role: 'assistant', content: [], source: { kind: 'model', provider: 'p', model: '' } } },
        'must have model source',
      ],
      [
        'assistant/message',
        { message: { id: '', role: 'assistant', content: [] } },
        'seed assistant/message at index 0 lacks an identified message',
      ],
      [
        'tool/result',
        { message: { id: 'a', role: 'user', content: [], source: { kind: 'user' } } },
        'seed tool/result at index 0 message must have tool source',
      ],
      [
        'tool/result',
        {
          message: {
            id: 'a',
            role: 'user',
            content: [{ type: 'text', text: 'x' }],
            source: { kind: 'tool', callId: 'c' },
          },
        },
        'seed tool/result at index 0 message must contain one tool-result block',
      ],
      [
        'tool/result',
        {
          message: {
            id: 'a',
            role: 'user',
            content: [{ type: 'tool-result', toolCallId: 'c', content: 'x' }],
            source: { kind: 'tool', callId: 'c' },
          },
        },
        'must contain one tool-result block',
      ],
      [
        'tool/result',
        {
          message: {
            id: 'a',
            role: 'user',
            content: [{ type: 'tool-result', toolCallId: 'd', content: [] }],
            source: { kind: 'tool', callId: 'c' },
          },
        },
        'seed tool/result at index 0 message has mismatched tool call ids',
      ],
    ]
    for (const [type, data, message] of cases) {
      for (const make of both([ev(0, type, data, { surfaceOp: 'append' })])) expect(make).toThrow(message)
    }
  })

  it('contiguity', () => {
    for (const make of both([u(0), u(2)])) {
      expect(make).toThrow('seed event at index 1 has seq 2 (expected 1); seed must be contiguous from 0')
    }
  })

  it('surface transitions are wrapped with the seed index', () => {
    for (const make of both([ev(0, 'user/message', user('x'))])) {
      expect(make).toThrow(
        'invalid seed event at index 0: session event "user/message" is surface-eligible and requires a surfaceOp marker',
      )
    }
    for (const make of both([
      u(0),
      ev(1, 'user/message', user('c'), { surfaceOp: { op: 'replace', start: 0, end: 0 } }),
    ])) {
      expect(make).toThrow(
        'invalid seed event at index 1: surface replace: sourceEventSeqs must include every shadowed surface node; missing 0',
      )
    }
  })

  it('checks run per event in order: an earlier surface error wins over a later envelope error', () => {
    expect(() =>
      Session.create('s', [ev(0, 'turn/start', { turn: 1 }, { surfaceOp: 'append' }), { bad: true }]),
    ).toThrow(
      'invalid seed event at index 0: session event "turn/start" is not surface-eligible and cannot carry surfaceOp',
    )
  })

  it('a non-Error throw in the surface transition becomes "invalid surface metadata"', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw 'nope'
        },
      },
    )
    const seed = [
      u(0),
      { type: 'user/message', seq: 1, time: 0, data: user('r'), surfaceOp: hostile, sourceEventSeqs: [0] },
    ]
    expect(() => Session.fromRestore('s', seed, { version: 0, id: 's', createdAt: 1 })).toThrow(
      'invalid seed event at index 1: invalid surface metadata',
    )
  })
})

describe('seeded sessions', () => {
  it('appends session/end-seed when missing; replaying a log that ends in the marker is identical', () => {
    const seed = [
      u(0),
      ev(
        1,
        'assistant/message',
        { turn: 1, step: 1, message: assistant('a') },
        { surfaceOp: 'append', sourceEventSeqs: [] },
      ),
    ]
    const s = Session.create('s', seed)
    expect(s.events).toHaveLength(3)
    expect(s.events[2]).toMatchObject({ type: 'session/end-seed', seq: 2, data: {} })
    expect(s.firstLiveSeq).toBe(2)
    const again = Session.create('s', s.events as unknown as AnySessionEvent[])
    expect(again.events).toEqual(s.events)
    expect(again.firstLiveSeq).toBe(3)
    expect(Session.create('s', []).events.map((e) => e.type)).toEqual(['session/end-seed'])
    expect(Session.create('s').events).toEqual([])
    expect(Session.create('s').firstLiveSeq).toBe(0)
  })

  it('snapshot mode detaches seed events; restore mode adopts and freezes them in place', () => {
    const seed = [u(0)]
    const s = Session.create('s', seed)
    expect(s.events[0]).not.toBe(seed[0])
    expect(s.events[0]).toEqual(seed[0])
    const owned = [structuredClone(u(0))]
    const r = Session.fromRestore('s', owned, { version: 0, id: 's', createdAt: 1 })
    expect(r.events[0]).toBe(owned[0])
    expect(Object.isFrozen(owned[0]!.data)).toBe(true)
  })

  it('restore mode freezes 20 000-deep data without a RangeError', () => {
    let deep: Record<string, unknown> = {}
    const root = deep
    for (let i = 0; i < 20000; i++) deep = deep.next = {}
    const s = Session.fromRestore('s', [ev(0, 'plugin/deep', root)], { version: 0, id: 's', createdAt: 1 })
    expect(Object.isFrozen(deep)).toBe(true)
    expect(s.events).toHaveLength(2)
  })

  it('the seeded surface and messages are rebuilt', () => {
    const t = toolResult('c1', 'out')
    const seed = [
      u(0),
      ev(
        1,
        'assistant/message',
        { turn: 1, step: 1, message: assistant('') },
        { surfaceOp: 'append', sourceEventSeqs: [] },
      ),
      ev(2, 'tool/result', { turn: 1, step: 1, message: t }, { surfaceOp: 'append' }),
    ]
    const s = Session.create('s', seed)
    expect(s.surface.nodes).toEqual([0, 1, 2])
    expect(s.deriveMessages().map((m) => m.id)).toEqual([(seed[0]!.data as { id: string }).id, t.id])
  })
})
