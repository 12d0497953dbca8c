/**
 * Black-box conformance checks of the documented contract (README.md, docs/session-events.md, docs/provability.md):
 * every case imports only the public entry and pins a rule (exact wording, order of checks, defaults, examples).
 */
import { createHash } from 'node:crypto'
import { createAssistantMessage, createToolResultMessage, createUserMessage, callId } from '@bridle/llm'
import { Context, Logger } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  KNOWN_SESSION_EVENT_TYPES,
  Session,
  SessionForkError,
  SessionStore,
  adoptSessionEvent,
  canonicalHeader,
  canonicalJson,
  deriveEventMessage,
  foldRequestHeader,
  foldSurface,
  headerEquals,
  interruptedTurnClosers,
  reconstructRequest,
  requestSteps,
  snapshotJsonValue,
  snapshotSessionEvent,
  verifyDigests,
  TOOL_NOT_STARTED,
  TOOL_OUTCOME_UNKNOWN,
  type AnySessionEvent,
} from '../src/index.js'

const model = { provider: 'p', model: 'm' }
const user = (text: string) => createUserMessage(text)
const assistant = (text: string) =>
  createAssistantMessage({ content: text === '' ? [] : [{ type: 'text', text }], source: model })
const ev = (type: string, seq: number, data: unknown, extra: Record<string, unknown> = {}) => ({
  type,
  seq,
  time: 1,
  data,
  ...extra,
})
const messageOf = (error: () => unknown): string => {
  try {
    error()
  } catch (e) {
    return (e as Error).message
  }
  throw new Error('expected a throw')
}

let warnings: string[]
let target: Logger.Target
beforeEach(() => {
  warnings = []
  target = { colors: 0, levels: { base: 3 }, record: (r: Logger.Record) => warnings.push(r.content) }
  Logger.targets.push(target)
})
afterEach(() => {
  Logger.targets.splice(Logger.targets.indexOf(target), 1)
})

describe('session header', () => {
  it('snapshot mode: non-JSON header and array header; restore mode: non-plain prototype', () => {
    expect(() => Session.create('a', undefined, { version: 0, id: 'a', createdAt: 1, x: undefined })).toThrow(
      'session header is not losslessly JSON-serializable',
    )
    expect(() => Session.create('a', undefined, [])).toThrow('session header is not a plain JSON record')
    class H {
      version = 0
      id = 'a'
      createdAt = 1
    }
    expect(() => Session.fromRestore('a', [], new H())).toThrow('session header is not a plain JSON record')
    expect(() => Session.fromRestore('a', [], [])).toThrow('session header is not a plain JSON record')
  })

  it('runs the checks in the table order with exact wording', () => {
    const base = { version: 0, id: 'a', createdAt: 1 }
    expect(messageOf(() => Session.create('a', undefined, { ...base, version: 1, id: 'zz' }))).toBe(
      'session header version must be 0, got 1',
    )
    expect(messageOf(() => Session.create('a', undefined, { ...base, id: 'zz', createdAt: -1 }))).toBe(
      'session header id "zz" does not match session id "a"',
    )
    expect(messageOf(() => Session.create('a', undefined, { ...base, createdAt: 1.5, cwd: 3 }))).toBe(
      'session header createdAt must be a non-negative safe integer',
    )
    expect(messageOf(() => Session.create('a', undefined, { ...base, createdAt: -1 }))).toBe(
      'session header createdAt must be a non-negative safe integer',
    )
    expect(messageOf(() => Session.create('a', undefined, { ...base, cwd: 3, parentSession: 4 }))).toBe(
      'session header cwd must be a string',
    )
    expect(messageOf(() => Session.create('a', undefined, { ...base, cwd: 'rel/dir', parentSession: 4 }))).toBe(
      'session header cwd must be an absolute path, got "rel/dir"',
    )
    expect(messageOf(() => Session.create('a', undefined, { ...base, parentSession: 4, seedLength: -1 }))).toBe(
      'session header parentSession must be a string',
    )
    expect(messageOf(() => Session.create('a', undefined, { ...base, seedLength: -1 }))).toBe(
      'session header seedLength must be a non-negative safe integer',
    )
    expect(messageOf(() => Session.fromRestore('a', [], { ...base, seedLength: 0.5 }))).toBe(
      'session header seedLength must be a non-negative safe integer',
    )
  })

  it('defaults the header, keeps unknown keys, and exposes a detached deep-frozen copy', () => {
    const before = Date.now()
    const plain = Session.create('d')
    expect(plain.header.version).toBe(0)
    expect(plain.header.id).toBe('d')
    expect(plain.header.createdAt).toBeGreaterThanOrEqual(before)
    expect(Object.keys(plain.header).sort()).toEqual(['createdAt', 'id', 'version'])

    const input = { version: 0, id: 'k', createdAt: 5, cwd: '/w', extra: { nested: [1] } }
    const session = Session.create('k', undefined, input)
    input.extra.nested.push(2)
    input.cwd = '/other'
    expect(session.header).toEqual({ version: 0, id: 'k', createdAt: 5, cwd: '/w', extra: { nested: [1] } })
    expect(Reflect.set(session.header, 'cwd', '/x')).toBe(false)
    expect(Reflect.set((session.header as unknown as { extra: { nested: number[] } }).extra.nested, 0, 9)).toBe(false)
  })

  it('snapshot mode checks the seed before the header; restore mode checks the header first', () => {
    const badSeed = [{ type: 'x', seq: 0, time: 1, data: {}, bogus: 1 }]
    const badHeader = { version: 2, id: 'a', createdAt: 1 }
    expect(messageOf(() => Session.create('a', badSeed, badHeader))).toBe(
      'seed event at index 0 has an invalid event envelope',
    )
    expect(messageOf(() => Session.fromRestore('a', badSeed, badHeader))).toBe(
      'session header version must be 0, got 2',
    )
  })
})

describe('envelope check on seeds', () => {
  const invalid = 'seed event at index 0 has an invalid event envelope'
  it.each([
    ['an unknown own key', { type: 'x', seq: 0, time: 1, data: {}, id: 'e1' }],
    ['a non-string type', { type: 7, seq: 0, time: 1, data: {} }],
    ['a negative seq', { type: 'x', seq: -1, time: 1, data: {} }],
    ['a fractional time', { type: 'x', seq: 0, time: 1.5, data: {} }],
    ['missing data', { type: 'x', seq: 0, time: 1 }],
    ['ignorable: false', { type: 'x', seq: 0, time: 1, data: {}, ignorable: false }],
  ])('rejects %s', (_name, event) => {
    expect(() => Session.create('a', [event])).toThrow(invalid)
    expect(() => Session.fromRestore('a', [event], { version: 0, id: 'a', createdAt: 1 })).toThrow(invalid)
  })

  it('accepts null data, a negative time and ignorable: true; append cannot set ignorable and ignores other options', () => {
    const s = Session.create('a', [{ type: 'plugin/x', seq: 0, time: -5, data: null, ignorable: true }])
    expect(s.events[0]).toEqual({ type: 'plugin/x', seq: 0, time: -5, data: null, ignorable: true })
    const appended = s.append('plugin/y', null, { ignorable: true, whatever: 1 } as never)
    expect(appended).not.toHaveProperty('ignorable')
    expect(appended).not.toHaveProperty('whatever')
    expect(s.events.at(-1)).toBe(appended)
  })
})

describe('event vocabulary', () => {
  it('KNOWN_SESSION_EVENT_TYPES holds exactly the 17 names (request/compaction added for compaction steps, request/cache for cache placement); append accepts any type string', () => {
    expect([...KNOWN_SESSION_EVENT_TYPES].sort()).toEqual(
      [
        'turn/start',
        'turn/end',
        'step/start',
        'step/end',
        'user/message',
        'assistant/chunk',
        'assistant/message',
        'tool/call',
        'tool/result',
        'todo/write',
        'request/header',
        'request/context',
        'request/digest',
        'request/compaction',
        'request/cache',
        'session/end-seed',
        'agent/inbox/spliced',
      ].sort(),
    )
    const s = Session.create('a')
    expect(s.append('any/thing-at-all', { x: 1 }).type).toBe('any/thing-at-all')
  })
})

describe('message shape validation', () => {
  it('uses the seed subject and the rule order', () => {
    const noId = { ...user('x'), id: '' }
    expect(() => Session.create('a', [ev('user/message', 0, noId, { surfaceOp: 'append' })])).toThrow(
      'seed user/message at index 0 lacks an identified message',
    )
    const asAssistantRole = { ...user('x'), role: 'assistant' }
    expect(() => Session.create('a', [ev('user/message', 0, asAssistantRole, { surfaceOp: 'append' })])).toThrow(
      'seed user/message at index 0 message must have role "user"',
    )
    const badSource = { ...user('x'), source: { kind: '' } }
    expect(() => Session.create('a', [ev('user/message', 0, badSource, { surfaceOp: 'append' })])).toThrow(
      'seed user/message at index 0 message has invalid source',
    )
    const badContent = { ...user('x'), content: 'text' }
    expect(() => Session.create('a', [ev('user/message', 0, badContent, { surfaceOp: 'append' })])).toThrow(
      'seed user/message at index 0 message has invalid content',
    )
    const userSourced = { ...assistant('hi'), source: { kind: 'user' } }
    expect(() =>
      Session.create('a', [
        ev(
          'assistant/message',
          0,
          { turn: 1, step: 1, message: userSourced },
          { surfaceOp: 'append', sourceEventSeqs: [] },
        ),
      ]),
    ).toThrow('seed assistant/message at index 0 message must have model source')
  })

  it('tool results need a tool source, one tool-result block, and matching ids', () => {
    const good = createToolResultMessage({ callId: callId('c1'), content: 'ok' })
    const seed = (message: unknown) => [ev('tool/result', 0, { turn: 1, step: 1, message }, { surfaceOp: 'append' })]
    expect(() => Session.create('a', seed({ ...good, source: { kind: 'user' } }))).toThrow(
      'seed tool/result at index 0 message must have tool source',
    )
    expect(() => Session.create('a', seed({ ...good, content: [] }))).toThrow(
      'seed tool/result at index 0 message must contain one tool-result block',
    )
    expect(() =>
      Session.create('a', seed({ ...good, content: [{ type: 'tool-result', toolCallId: 'c2', content: [] }] })),
    ).toThrow('seed tool/result at index 0 message has mismatched tool call ids')
    expect(Session.create('a', seed(good)).deriveMessages()).toEqual([good])
  })

  it('checks seeded request/header records', () => {
    const at = (data: unknown) => () => Session.create('a', [ev('request/header', 0, data)])
    expect(at({ header: { config: { provider: 'p', model: '' } }, reason: 'initial' })).toThrow(
      'seed request/header at index 0 lacks provider/model',
    )
    expect(at({ header: { config: { ...model, reasoningEffort: '' } }, reason: 'initial' })).toThrow(
      'seed request/header at index 0 has an invalid reasoningEffort',
    )
    expect(at({ header: { config: model, adapterDefaults: { maxTokens: true } }, reason: 'initial' })).toThrow(
      'seed request/header at index 0 has invalid adapterDefaults',
    )
    expect(
      at({ header: { config: { ...model, maxTokens: 5 }, adapterDefaults: { maxTokens: false } }, reason: 'initial' }),
    ).toThrow('seed request/header at index 0 has invalid adapterDefaults')
    expect(
      at({ header: { config: { ...model, maxTokens: 5 }, adapterDefaults: { temperature: true } }, reason: 'initial' }),
    ).toThrow('seed request/header at index 0 has invalid adapterDefaults')
    expect(
      at({ header: { config: { ...model, maxTokens: 5 }, adapterDefaults: { maxTokens: true } }, reason: 'initial' }),
    ).not.toThrow()
  })

  it('adoptSessionEvent returns the same object with its message frozen; snapshotSessionEvent copies first', () => {
    const plain = { id: 'm1', role: 'user', content: [{ type: 'text', text: 'x' }], source: { kind: 'user' } }
    const e = ev('user/message', 3, plain, { surfaceOp: 'append' })
    const copy = snapshotSessionEvent(e as AnySessionEvent)
    expect(copy).not.toBe(e)
    expect(copy).toEqual(e)
    expect(Object.isFrozen(e.data)).toBe(false)
    expect(adoptSessionEvent(e as AnySessionEvent)).toBe(e)
    expect(Object.isFrozen(e.data)).toBe(true)
    expect(() => adoptSessionEvent(ev('user/message', 3, { ...user('x'), id: '' }) as AnySessionEvent)).toThrow(
      'session event at seq 3 lacks an identified message',
    )
  })

  it('append does not validate message shapes; such a log fails to replay', () => {
    const s = Session.create('a')
    s.append('user/message', { role: 'user', content: [] } as never, { surfaceOp: 'append' })
    expect(() => Session.create('b', s.events)).toThrow('seed user/message at index 0 lacks an identified message')
  })
})

describe('JSON values', () => {
  it('rejects -0, undefined slots, sparse arrays and non-plain objects; ignores toJSON; runs each getter once', () => {
    for (const bad of [
      -0,
      { a: undefined },
      [undefined],
      // biome-ignore lint/suspicious/noSparseArray: the hole is the input under test
      [1, , 2],
      new Date(0),
      new Map(),
      NaN,
      1n,
      Object.assign([1], { x: 1 }),
    ]) {
      expect(snapshotJsonValue(bad)).toBeUndefined()
    }
    expect(snapshotJsonValue({ toJSON: () => 1, a: 1 })).toBeUndefined()
    expect(snapshotJsonValue({ a: 1, b: { toJSON: 1 } })).toEqual({ a: 1, b: { toJSON: 1 } })
    let reads = 0
    const withGetter = {
      get g() {
        reads++
        return 1
      },
    }
    expect(snapshotJsonValue(withGetter)).toEqual({ g: 1 })
    expect(reads).toBe(1)
  })

  it('outputs plain objects of this realm, keeps a literal __proto__ key, copies shared aliases apart, has no depth limit', () => {
    const nullProto = Object.create(null) as Record<string, unknown>
    nullProto.a = 1
    const out = snapshotJsonValue(nullProto) as object
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    const proto = JSON.parse('{"__proto__": {"x": 1}}') as object
    const copied = snapshotJsonValue(proto) as Record<string, unknown>
    expect(Object.hasOwn(copied, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype)
    const shared = { v: 1 }
    const aliased = snapshotJsonValue({ a: shared, b: shared }) as { a: object; b: object }
    expect(aliased.a).not.toBe(aliased.b)
    let deep: unknown = []
    for (let i = 0; i < 5000; i++) deep = [deep]
    let walked = snapshotJsonValue(deep)
    let original = deep
    let depth = 0
    let sharedLevels = 0
    while (Array.isArray(walked) && Array.isArray(original)) {
      if (walked === original) sharedLevels++
      walked = walked[0]
      original = original[0]
      depth++
    }
    expect(depth).toBe(5001)
    expect(sharedLevels).toBe(0)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(snapshotJsonValue(cyclic)).toBeUndefined()
  })
})

describe('constructing a Session', () => {
  it('checks each seed event in the listed order', () => {
    // legacy type first, even with a broken envelope
    expect(
      messageOf(() => Session.create('a', [{ type: 'request/header-delta', seq: 9, time: 1, data: {}, junk: 1 }])),
    ).toMatch(/request\/header-delta/)
    // envelope before contiguity
    expect(messageOf(() => Session.create('a', [{ type: 'x', seq: 5, time: 1.5, data: {} }]))).toBe(
      'seed event at index 0 has an invalid event envelope',
    )
    // shape before fallback and contiguity
    expect(
      messageOf(() => Session.create('a', [ev('user/message', 4, { ...user('x'), id: '' }, { surfaceOp: 'append' })])),
    ).toBe('seed user/message at index 0 lacks an identified message')
    expect(
      messageOf(() =>
        Session.create('a', [ev('request/header', 3, { header: { config: model }, reason: 'fallback' })]),
      ),
    ).toMatch(/fallback/)
    expect(messageOf(() => Session.create('a', [ev('x', 0, {}), ev('x', 2, {})]))).toBe(
      'seed event at index 1 has seq 2 (expected 1); seed must be contiguous from 0',
    )
    expect(messageOf(() => Session.create('a', [ev('x', 0, {}), ev('user/message', 1, user('u'))]))).toBe(
      'invalid seed event at index 1: session event "user/message" is surface-eligible and requires a surfaceOp marker',
    )
    expect(messageOf(() => Session.create('a', [{ type: 'x', seq: 0, time: 1, data: { n: NaN } }]))).toBe(
      'seed event at index 0 is not losslessly JSON-serializable',
    )
  })

  it('appends session/end-seed after a seed (even []) unless it already ends in one; firstLiveSeq is the seed length', () => {
    expect(Session.create('a').events).toEqual([])
    expect(Session.create('a').firstLiveSeq).toBe(0)
    const empty = Session.create('a', [])
    expect(empty.events.map((e) => e.type)).toEqual(['session/end-seed'])
    expect(empty.events[0]!.data).toEqual({})
    expect(empty.firstLiveSeq).toBe(0)
    const seeded = Session.create('b', [
      ev('turn/start', 0, { turn: 1 }),
      ev('turn/end', 1, { turn: 1, reason: { kind: 'completed' } }),
    ])
    expect(seeded.events).toHaveLength(3)
    expect(seeded.firstLiveSeq).toBe(2)
    expect(seeded.seq).toBe(3)
    const replay = Session.create('c', seeded.events)
    expect(replay.events).toEqual(seeded.events)
    expect(replay.firstLiveSeq).toBe(3)
  })

  it('snapshot mode copies; restore mode adopts the very objects and freezes 20 000-deep data', () => {
    const e = ev('x', 0, { a: [1] })
    const snap = Session.create('a', [e])
    expect(snap.events[0]).not.toBe(e)
    expect(Object.isFrozen(e)).toBe(false)
    let deep: unknown = 0
    for (let i = 0; i < 20_000; i++) deep = [deep]
    const restoreEvent = ev('x', 0, deep)
    const restored = Session.fromRestore('a', [restoreEvent], { version: 0, id: 'a', createdAt: 1 })
    expect(restored.events[0]).toBe(restoreEvent)
    expect(Object.isFrozen(restoreEvent)).toBe(true)
    expect(Object.isFrozen((restoreEvent.data as unknown[])[0])).toBe(true)
  })

  it('events is a frozen array cached until the next append; older arrays never grow', () => {
    const s = Session.create('a')
    s.append('x', { a: { b: 1 } })
    const first = s.events
    expect(s.events).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    expect(Object.isFrozen((first[0]!.data as unknown as { a: object }).a)).toBe(true)
    s.append('x', 2)
    expect(first).toHaveLength(1)
    expect(s.events).not.toBe(first)
    expect(s.events).toHaveLength(2)
  })
})

describe('append pipeline', () => {
  it('returns the committed event object with seq = length and time = Date.now()', () => {
    const s = Session.create('a')
    const before = Date.now()
    const e = s.append('turn/start', { turn: 1 })
    expect(e).toBe(s.events[0])
    expect(e.seq).toBe(0)
    expect(e.time).toBeGreaterThanOrEqual(before)
    expect(Object.isFrozen(e.data)).toBe(true)
  })

  it('example 3: NaN in todo/write is refused and the log does not grow', () => {
    const s = Session.create('a')
    expect(() =>
      s.append('todo/write', { todos: [{ content: 'x', status: 'pending', weight: NaN }] } as never),
    ).toThrow('session event "todo/write" carries non-JSON-serializable data')
    expect(s.events).toHaveLength(0)
    expect(s.seq).toBe(0)
  })

  it('checks data, then legacy vocabulary, then surface metadata', () => {
    const s = Session.create('a')
    expect(messageOf(() => s.append('request/header-delta', { x: NaN }))).toBe(
      'session event "request/header-delta" carries non-JSON-serializable data',
    )
    expect(messageOf(() => s.append('request/header-delta', {}, { sourceEventSeqs: [NaN] }))).toBe(
      'session event "request/header-delta" uses unsupported legacy request/header-delta format',
    )
    expect(
      messageOf(() =>
        s.append('request/header', { header: { config: model }, reason: 'fallback' } as never, {
          sourceEventSeqs: [NaN],
        }),
      ),
    ).toBe('session event "request/header" uses unsupported legacy request/header reason "fallback"')
    expect(messageOf(() => s.append('user/message', user('x'), { surfaceOp: 'append', sourceEventSeqs: [NaN] }))).toBe(
      'session event "user/message" carries non-JSON-serializable surface metadata',
    )
    expect(s.events).toHaveLength(0)
  })

  it('observers see the committed event; throws and rejections are logged; reentrant appends fail and are logged', async () => {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    const seen: unknown[] = []
    ctx.on('session/event', (session, event) => {
      seen.push(session.events.at(-1) === event)
      if ((event.type as string) === 'boom') throw new Error('b1')
      if ((event.type as string) === 'reject') return Promise.reject(new Error('r1')) as never
      if ((event.type as string) === 'reenter') session.append('nested', {})
    })
    const s = ctx.sessions.create('obs')
    s.append('boom', {})
    s.append('reject', {})
    s.append('reenter', {})
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(seen).toEqual([true, true, true])
    expect(s.events.map((e) => e.type)).toEqual(['boom', 'reject', 'reenter'])
    expect(warnings).toContain('session "obs": session/event listener threw: Error: b1')
    expect(warnings).toContain('session "obs": session/event listener rejected: Error: r1')
    expect(warnings).toContain(
      'session "obs": session/event listener threw: Error: session append cannot reenter while another append is being published',
    )
  })

  it('a throwing internal/event hook vetoes the append: nothing committed, no observer', () => {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    const observed: string[] = []
    ctx.on('session/event', (_s, e) => void observed.push(e.type))
    const s = ctx.sessions.create('veto')
    const dispose = ctx.on(
      'internal/event' as never,
      ((_type: string, name: string) => {
        if (name === 'session/event') throw new Error('veto')
      }) as never,
    )
    expect(() => s.append('x', {})).toThrow('veto')
    expect(s.events).toHaveLength(0)
    expect(observed).toEqual([])
    dispose()
    s.append('x', {})
    expect(observed).toEqual(['x'])
  })
})

describe('surface operations', () => {
  it('example 2: a checkpoint replace and its missing-source error', () => {
    const s = Session.create('a')
    for (let i = 0; i < 4; i++) s.append('user/message', user(`u${i}`), { surfaceOp: 'append' })
    const gen = s.surface.replaceGeneration
    expect(() =>
      s.append('user/message', user('c'), { surfaceOp: { op: 'replace', start: 1, end: 2 }, sourceEventSeqs: [1] }),
    ).toThrow('surface replace: sourceEventSeqs must include every shadowed surface node; missing 2')
    expect(() => s.append('user/message', user('c'), { surfaceOp: { op: 'replace', start: 1, end: 2 } })).toThrow(
      'surface replace: sourceEventSeqs must include every shadowed surface node; missing 1, 2',
    )
    expect(s.surface.nodes).toEqual([0, 1, 2, 3])
    expect(s.surface.replaceGeneration).toBe(gen)
    s.append('user/message', user('c'), { surfaceOp: { op: 'replace', start: 1, end: 2 }, sourceEventSeqs: [1, 2] })
    expect(s.surface.nodes).toEqual([0, 4, 3])
    expect(s.surface.replaceGeneration).toBe(gen + 1)
    expect(s.surface.has(1)).toBe(false)
    expect(s.surface.has(4)).toBe(true)
    // positional: {start: 4, end: 3} is fine now that 4 precedes 3
    s.append('user/message', user('d'), { surfaceOp: { op: 'replace', start: 4, end: 3 }, sourceEventSeqs: [3, 4] })
    expect(s.surface.nodes).toEqual([0, 5])
    // shadowed seqs can never be targeted again
    expect(() =>
      s.append('user/message', user('e'), { surfaceOp: { op: 'replace', start: 1, end: 1 }, sourceEventSeqs: [1] }),
    ).toThrow('surface replace: start seq 1 not found in surface')
    expect(() =>
      s.append('user/message', user('e'), { surfaceOp: { op: 'replace', start: 0, end: 3 }, sourceEventSeqs: [0] }),
    ).toThrow('surface replace: end seq 3 not found in surface')
    expect(() =>
      s.append('user/message', user('e'), { surfaceOp: { op: 'replace', start: 5, end: 0 }, sourceEventSeqs: [0, 5] }),
    ).toThrow('surface replace: start seq 5 (index 1) is after end seq 0 (index 0)')
  })

  it('planner rules and their order', () => {
    const s = Session.create('a')
    s.append('user/message', user('u'), { surfaceOp: 'append' })
    expect(messageOf(() => s.append('turn/start', { turn: 1 }, { surfaceOp: 'append', sourceEventSeqs: [0] }))).toBe(
      'session event "turn/start" is not surface-eligible and cannot carry surfaceOp',
    )
    expect(messageOf(() => s.append('turn/start', { turn: 1 }, { sourceEventSeqs: [0] }))).toBe(
      'session event "turn/start" is not surface-eligible and cannot carry sourceEventSeqs',
    )
    expect(messageOf(() => s.append('user/message', user('x')))).toBe(
      'session event "user/message" is surface-eligible and requires a surfaceOp marker',
    )
    expect(messageOf(() => s.append('user/message', user('x'), { surfaceOp: 'prepend' as never }))).toBe(
      'session event "user/message" carries an invalid surfaceOp',
    )
    expect(
      messageOf(() =>
        s.append('user/message', user('x'), { surfaceOp: { op: 'replace', start: 0, end: 0, x: 1 } as never }),
      ),
    ).toBe('session event "user/message" carries an invalid replace surfaceOp')
    expect(
      messageOf(() => s.append('user/message', user('x'), { surfaceOp: { op: 'replace', start: -1, end: 0 } })),
    ).toBe('session event "user/message" carries an invalid replace surfaceOp')
    expect(
      messageOf(() => s.append('user/message', user('x'), { surfaceOp: 'append', sourceEventSeqs: 0 as never })),
    ).toBe('sourceEventSeqs on event at seq 1 must be an array when present')
    expect(messageOf(() => s.append('user/message', user('x'), { surfaceOp: 'append', sourceEventSeqs: [] }))).toBe(
      'sourceEventSeqs must not be empty except on assistant/message',
    )
    expect(messageOf(() => s.append('user/message', user('x'), { surfaceOp: 'append', sourceEventSeqs: [0.5] }))).toBe(
      'session event "user/message" sourceEventSeqs must densely contain non-negative safe integers',
    )
    expect(messageOf(() => s.append('user/message', user('x'), { surfaceOp: 'append', sourceEventSeqs: [0, 0] }))).toBe(
      'sourceEventSeqs must not contain duplicates',
    )
    expect(messageOf(() => s.append('user/message', user('x'), { surfaceOp: 'append', sourceEventSeqs: [1] }))).toBe(
      'sourceEventSeqs must reference earlier events: 1 >= current seq 1',
    )
    expect(
      s.append(
        'assistant/message',
        { turn: 1, step: 1, message: assistant('') },
        { surfaceOp: 'append', sourceEventSeqs: [] },
      ).seq,
    ).toBe(1)
    expect(s.events).toHaveLength(2)
  })

  it('foldSurface reports contiguity and replacements; tool/result replaces may change only content', () => {
    expect(() => foldSurface([ev('x', 1, {})] as AnySessionEvent[])).toThrow(
      'session event seq 1 is not contiguous; expected 0',
    )
    const s = Session.create('a')
    const r1 = createToolResultMessage({ callId: callId('c1'), content: 'long output' })
    s.append('tool/result', { turn: 1, step: 1, message: r1 }, { surfaceOp: 'append' })
    s.append('user/message', user('u'), { surfaceOp: 'append' })
    const trimmed = { ...r1, content: [{ ...r1.content[0]!, content: [{ type: 'text' as const, text: '[trimmed]' }] }] }
    expect(() =>
      s.append(
        'tool/result',
        { turn: 1, step: 1, message: trimmed },
        { surfaceOp: { op: 'replace', start: 0, end: 1 }, sourceEventSeqs: [0, 1] },
      ),
    ).toThrow('tool/result surface replacement must rewrite exactly one current node')
    expect(() =>
      s.append(
        'tool/result',
        { turn: 1, step: 1, message: trimmed },
        { surfaceOp: { op: 'replace', start: 1, end: 1 }, sourceEventSeqs: [1] },
      ),
    ).toThrow('tool/result surface replacement must target a current tool/result')
    expect(() =>
      s.append(
        'tool/result',
        { turn: 1, step: 2, message: trimmed },
        { surfaceOp: { op: 'replace', start: 0, end: 0 }, sourceEventSeqs: [0] },
      ),
    ).toThrow('tool/result surface replacement may change only content')
    expect(() =>
      s.append(
        'tool/result',
        { turn: 1, step: 1, message: { ...trimmed, id: 'other' } },
        { surfaceOp: { op: 'replace', start: 0, end: 0 }, sourceEventSeqs: [0] },
      ),
    ).toThrow('tool/result surface replacement may change only content')
    s.append(
      'tool/result',
      { turn: 1, step: 1, message: trimmed },
      { surfaceOp: { op: 'replace', start: 0, end: 0 }, sourceEventSeqs: [0] },
    )
    expect(s.surface.nodes).toEqual([2, 1])
    expect(foldSurface(s.events)).toEqual({
      nodes: [2, 1],
      replacements: [{ seq: 2, start: 0, end: 0, shadowedSeqs: [0] }],
    })
  })
})

describe('deriveMessages', () => {
  it('example 1: nodes [1, 5], [user, assistant], the same array on a second call', () => {
    const s = Session.create('a')
    s.append('turn/start', { turn: 1 })
    const u = user('hi')
    s.append('user/message', u, { surfaceOp: 'append' })
    const chunks = [0, 1, 2].map((i) =>
      s.append('assistant/chunk', {
        turn: 1,
        step: 1,
        chunk: { type: 'text-delta', index: 0, text: `h${i}` },
      } as never),
    )
    const a = assistant('hello')
    s.append(
      'assistant/message',
      { turn: 1, step: 1, message: a },
      { surfaceOp: 'append', sourceEventSeqs: chunks.map((c) => c.seq) },
    )
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    expect(s.surface.nodes).toEqual([1, 5])
    const msgs = s.deriveMessages()
    expect(msgs).toEqual([u, a])
    expect(s.deriveMessages()).toBe(msgs)
    expect(Object.isFrozen(msgs)).toBe(true)
    expect(msgs[0]).toBe(s.events[1]!.data)
    expect(deriveEventMessage(s.events[1]!)!.content).toBe((s.events[1]!.data as { content: unknown }).content)
    expect(() => (msgs as unknown[]).push(1)).toThrow(TypeError)
    expect(() => {
      ;(msgs[0] as { id: string }).id = 'x'
    }).toThrow(TypeError)
    s.append('user/message', user('more'), { surfaceOp: 'append' })
    expect(msgs).toHaveLength(2)
    expect(s.deriveMessages()).toHaveLength(3)
  })

  it('an empty assistant message occupies a node but yields no message; other types project to null', () => {
    const s = Session.create('a')
    s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant('') },
      { surfaceOp: 'append', sourceEventSeqs: [] },
    )
    expect(s.surface.nodes).toEqual([0])
    expect(s.deriveMessages()).toEqual([])
    expect(deriveEventMessage(s.append('turn/start', { turn: 1 }))).toBeNull()
  })
})

describe('request header and context', () => {
  it('canonicalHeader drops empty system/tools and false-only adapterDefaults, keeps config verbatim', () => {
    const config = { ...model, temperature: 0 }
    const c = canonicalHeader({ config, system: '', tools: [], adapterDefaults: {} })
    expect(c).toEqual({ config })
    expect(c.config).toBe(config)
    expect(canonicalHeader({ config, adapterDefaults: { maxTokens: true } })).toEqual({
      config,
      adapterDefaults: { maxTokens: true },
    })
  })

  it('headerEquals compares field by field without canonicalizing', () => {
    const h = { config: model }
    expect(headerEquals(h, { config: { ...model } })).toBe(true)
    expect(headerEquals(h, { config: { ...model, stop: [] } })).toBe(false)
    expect(headerEquals({ config: { ...model, stop: ['a'] } }, { config: { ...model, stop: ['a'] } })).toBe(true)
    expect(headerEquals(h, { config: model, system: '' })).toBe(false)
    expect(headerEquals(h, { config: model, tools: [] })).toBe(true)
    expect(headerEquals(h, { config: model, adapterDefaults: { maxTokens: true } })).toBe(false)
    const t1 = { name: 'a', description: 'd', inputSchema: { type: 'object' } }
    const t2 = { description: 'd', name: 'a', inputSchema: { type: 'object' } }
    expect(headerEquals({ config: model, tools: [t1] as never }, { config: model, tools: [t2] as never })).toBe(false)
  })

  it('foldRequestHeader returns the canonical last header or `from` itself; requestHeader/Context keep identity', () => {
    const from = { config: model }
    expect(foldRequestHeader([], from)).toBe(from)
    expect(foldRequestHeader([])).toBeUndefined()
    const s = Session.create('a')
    expect(s.requestHeader()).toBeUndefined()
    expect(s.requestContext()).toBeUndefined()
    s.append('request/header', { header: { config: model, system: '' }, reason: 'initial' })
    const h = s.requestHeader()
    expect(h).toEqual({ config: model })
    expect(Object.isFrozen(h)).toBe(true)
    s.append('turn/start', { turn: 1 })
    expect(s.requestHeader()).toBe(h)
    s.append('request/context', { ...model, contextWindow: 1000 })
    const c1 = s.requestContext()
    expect(c1).toEqual({ ...model, contextWindow: 1000 })
    expect(s.requestContext()).toBe(c1)
    s.append('request/context', model)
    expect(s.requestContext()).toEqual(model)
    expect(foldRequestHeader(s.events)).toEqual({ config: model })
  })
})

/** A two-step turn: prompt, tool call, tool result, runtime-context snapshot, second step without a header. */
function toolRound() {
  const s = Session.create('a')
  const prompt = user('read it')
  s.append('turn/start', { turn: 1 })
  s.append('step/start', { turn: 1, step: 1 })
  s.append('user/message', prompt, { surfaceOp: 'append' })
  s.append('request/header', { header: { config: model, system: 'sys' }, reason: 'initial' })
  s.append('request/context', { ...model, contextWindow: 100 })
  const chunk = s.append('assistant/chunk', {
    turn: 1,
    step: 1,
    chunk: { type: 'text-delta', index: 0, text: '.' },
  } as never)
  const call = createAssistantMessage({
    content: [{ type: 'tool-call', id: callId('c1'), name: 'read', arguments: '{}' }],
    source: model,
  })
  s.append(
    'assistant/message',
    { turn: 1, step: 1, message: call },
    { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
  )
  const callEvent = s.append('tool/call', { turn: 1, step: 1, callId: 'c1', name: 'read', arguments: '{}' })
  const result = createToolResultMessage({ callId: callId('c1'), content: 'data' })
  s.append(
    'tool/result',
    { turn: 1, step: 1, message: result },
    { surfaceOp: 'append', sourceEventSeqs: [callEvent.seq] },
  )
  s.append('step/end', { turn: 1, step: 1 })
  const stepStart = s.append('step/start', { turn: 1, step: 2 })
  const snapshot = user('cwd: /w')
  s.append('user/message', snapshot, { surfaceOp: 'append' })
  const out = s.append('assistant/chunk', {
    turn: 1,
    step: 2,
    chunk: { type: 'text-delta', index: 0, text: 'x' },
  } as never)
  s.append(
    'assistant/message',
    { turn: 1, step: 2, message: assistant('x') },
    { surfaceOp: 'append', sourceEventSeqs: [out.seq] },
  )
  s.append('step/end', { turn: 1, step: 2 })
  s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
  return { s, prompt, call, result, snapshot, stepStart, out }
}

describe('reconstructRequest', () => {
  it("example 5: step 2 after a tool round uses step 1's initial header", () => {
    const { s, prompt, call, result, snapshot, stepStart, out } = toolRound()
    const r = reconstructRequest(s.events, { turn: 1, step: 2 })
    expect(r.messages).toEqual([prompt, call, result, snapshot])
    expect(r.messages[0]).toBe(s.events[2]!.data)
    expect(r.headerSeq).toBe(3)
    expect(r.headerReason).toBe('initial')
    expect(r.stepStartSeq).toBe(stepStart.seq)
    expect(r.outputSeq).toBe(out.seq)
    expect(r.cutSeq).toBe(out.seq)
    expect(r.context).toEqual({ ...model, contextWindow: 100 })
    expect(r.request).toEqual({ ...model, system: 'sys', messages: [prompt, call, result, snapshot] })
    expect(Object.isFrozen(r)).toBe(true)
    expect(Object.isFrozen(r.request)).toBe(true)
    expect(requestSteps(s.events)).toEqual([
      { turn: 1, step: 1, stepStartSeq: 1 },
      { turn: 1, step: 2, stepStartSeq: stepStart.seq },
    ])
    // without `at`: the last step/start, cut at events.length
    const prefix = s.events.slice(0, out.seq)
    const last = reconstructRequest(prefix)
    expect(last.turn).toBe(1)
    expect(last.step).toBe(2)
    expect(last.cutSeq).toBe(prefix.length)
    expect(last.messages).toEqual(r.messages)
  })

  it('errors and the fallback cut points', () => {
    const { s } = toolRound()
    expect(() => reconstructRequest(s.events, { turn: 0, step: 1 })).toThrow(
      'reconstructRequest: turn and step must be positive safe integers',
    )
    expect(() => reconstructRequest(s.events, { turn: 1, step: 1.5 })).toThrow(
      'reconstructRequest: turn and step must be positive safe integers',
    )
    expect(() => reconstructRequest(s.events, { turn: 2, step: 1 })).toThrow(
      'reconstructRequest: no step/start for turn 2 step 1',
    )
    expect(() => reconstructRequest([])).toThrow('reconstructRequest: no step/start in the given events')
    const t = Session.create('b')
    t.append('turn/start', { turn: 1 })
    t.append('step/start', { turn: 1, step: 1 })
    t.append('user/message', user('x'), { surfaceOp: 'append' })
    expect(() => reconstructRequest(t.events, { turn: 1, step: 1 })).toThrow(
      'reconstructRequest: no request/header precedes turn 1 step 1',
    )
    t.append('request/header', { header: { config: model }, reason: 'initial' })
    const open = reconstructRequest(t.events, { turn: 1, step: 1 })
    expect(open.outputSeq).toBeUndefined()
    expect(open.cutSeq).toBe(t.events.length)
    expect(open.context).toBeUndefined()
    expect(open.request).toEqual({ ...model, messages: [t.events[2]!.data] })
    t.append('step/end', { turn: 1, step: 1 })
    t.append('user/message', user('after'), { surfaceOp: 'append' })
    expect(reconstructRequest(t.events, { turn: 1, step: 1 }).cutSeq).toBe(4)
  })
})

describe('interruptedTurnClosers', () => {
  it('example 4: outcome-unknown result citing the call, step/end, turn/end interrupted, stamped with the last time', () => {
    const events = [
      { type: 'turn/start', seq: 0, time: 10, data: { turn: 1 } },
      { type: 'step/start', seq: 1, time: 11, data: { turn: 1, step: 1 } },
      { type: 'user/message', seq: 2, time: 12, data: user('go'), surfaceOp: 'append' },
      { type: 'request/header', seq: 3, time: 13, data: { header: { config: model }, reason: 'initial' } },
      {
        type: 'assistant/chunk',
        seq: 4,
        time: 14,
        data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: '' } },
      },
      {
        type: 'assistant/message',
        seq: 5,
        time: 15,
        data: {
          turn: 1,
          step: 1,
          message: createAssistantMessage({
            content: [{ type: 'tool-call', id: callId('c1'), name: 'rm', arguments: '{}' }],
            source: model,
          }),
        },
        surfaceOp: 'append',
        sourceEventSeqs: [4],
      },
      { type: 'tool/call', seq: 6, time: 16, data: { turn: 1, step: 1, callId: 'c1', name: 'rm', arguments: '{}' } },
    ] as AnySessionEvent[]
    const closers = interruptedTurnClosers(events)
    expect(closers).toEqual([
      {
        type: 'tool/result',
        seq: 7,
        time: 16,
        data: {
          turn: 1,
          step: 1,
          message: {
            id: 'interrupted-tool-result-c1-7',
            role: 'user',
            source: { kind: 'tool', callId: 'c1' },
            content: [
              {
                type: 'tool-result',
                toolCallId: 'c1',
                isError: true,
                content: [
                  {
                    type: 'text',
                    text: 'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.',
                  },
                ],
              },
            ],
          },
          error: { name: 'ToolOutcomeUnknownError', code: TOOL_OUTCOME_UNKNOWN },
        },
        surfaceOp: 'append',
        sourceEventSeqs: [6],
      },
      { type: 'step/end', seq: 8, time: 16, data: { turn: 1, step: 1 } },
      { type: 'turn/end', seq: 9, time: 16, data: { turn: 1, reason: { kind: 'interrupted' } } },
    ])
    expect(TOOL_OUTCOME_UNKNOWN).toBe('TOOL_OUTCOME_UNKNOWN')
    // the closed log replays cleanly
    expect(() => Session.create('x', [...events, ...closers])).not.toThrow()
  })

  it('not-started calls get no provenance; dangling calls of an ended step get nothing; a closed log gets []', () => {
    const msg = (ids: string[]) =>
      createAssistantMessage({
        content: ids.map((id) => ({ type: 'tool-call' as const, id: callId(id), name: 't', arguments: '{}' })),
        source: model,
      })
    const events = [
      ev('turn/start', 0, { turn: 1 }),
      ev('step/start', 1, { turn: 1, step: 1 }),
      ev(
        'assistant/message',
        2,
        { turn: 1, step: 1, message: msg(['old']) },
        { surfaceOp: 'append', sourceEventSeqs: [] },
      ),
      ev('step/end', 3, { turn: 1, step: 1 }),
      ev('step/start', 4, { turn: 1, step: 2 }),
      ev(
        'assistant/message',
        5,
        { turn: 1, step: 2, message: msg(['n1', 'n2']) },
        { surfaceOp: 'append', sourceEventSeqs: [] },
      ),
    ] as AnySessionEvent[]
    const closers = interruptedTurnClosers(events)
    expect(closers.map((c) => c.type)).toEqual(['tool/result', 'tool/result', 'step/end', 'turn/end'])
    const first = closers[0]!
    expect(first).not.toHaveProperty('sourceEventSeqs')
    expect((first.data as { error: unknown }).error).toEqual({ name: 'ToolNotStartedError', code: TOOL_NOT_STARTED })
    expect((first.data as { message: { id: string } }).message.id).toBe('interrupted-tool-result-n1-6')
    expect(JSON.stringify(first.data)).toContain(
      'The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.',
    )
    expect((closers[1]!.data as { step: number }).step).toBe(2)
    expect(interruptedTurnClosers([])).toEqual([])
    expect(
      interruptedTurnClosers([
        ev('turn/start', 0, { turn: 1 }),
        ev('turn/end', 1, { turn: 1, reason: { kind: 'completed' } }),
      ] as AnySessionEvent[]),
    ).toEqual([])
  })
})

describe('branch', () => {
  function withTurns() {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    const s = ctx.sessions.create('src', { meta: { cwd: '/w' } })
    s.append('turn/start', { turn: 1 })
    s.append('user/message', user('x'), { surfaceOp: 'append' })
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    s.append('todo/write', { todos: [] })
    s.append('turn/start', { turn: 2 })
    return { ctx, s }
  }
  const forkError = (fn: () => unknown) => {
    try {
      fn()
    } catch (e) {
      expect(e).toBeInstanceOf(SessionForkError)
      return [(e as Error).message, (e as SessionForkError).code]
    }
    throw new Error('expected a throw')
  }

  it('runs the checks in order with codes', () => {
    const { ctx, s } = withTurns()
    expect(forkError(() => ctx.sessions.branch('missing', -1, 'src'))).toEqual([
      'session "src" already exists',
      'SESSION_ALREADY_EXISTS',
    ])
    expect(forkError(() => ctx.sessions.branch('missing', -1))).toEqual([
      'session "missing" not found',
      'SESSION_NOT_FOUND',
    ])
    expect(forkError(() => ctx.sessions.branch(Session.create('src'), -1))).toEqual([
      'session "src" is not the live store instance',
      'SESSION_NOT_LIVE',
    ])
    expect(forkError(() => ctx.sessions.branch(s, -1))).toEqual([
      'fork boundary for session "src" must be a non-negative safe integer, got -1',
      'INVALID_BOUNDARY',
    ])
    expect(forkError(() => ctx.sessions.branch(s, 5))).toEqual([
      'fork boundary 5 does not exist in session "src" (last seq: 4)',
      'INVALID_BOUNDARY',
    ])
    expect(forkError(() => ctx.sessions.branch(s))).toEqual([
      'fork boundary 4 in session "src" ends inside open turn 2',
      'OPEN_TURN',
    ])
    expect(forkError(() => ctx.sessions.branch(s, 1))).toEqual([
      'fork boundary 1 in session "src" ends inside open turn 1',
      'OPEN_TURN',
    ])
    const empty = ctx.sessions.create('empty')
    expect(forkError(() => ctx.sessions.branch(empty, 0))).toEqual([
      'fork boundary 0 does not exist in session "empty" (last seq: none)',
      'INVALID_BOUNDARY',
    ])
    const emptyChild = ctx.sessions.branch('empty')
    expect(emptyChild.events.map((e) => e.type)).toEqual(['session/end-seed'])
    expect(emptyChild.header.seedLength).toBe(0)
  })

  it('example 6: forking at turn/end; log-only events after it are included; header lineage', () => {
    const { ctx, s } = withTurns()
    const child = ctx.sessions.branch(s, 3, 'kid')
    expect(child.firstLiveSeq).toBe(4)
    expect(child.events.at(-1)!.type).toBe('session/end-seed')
    expect(child.events.slice(0, 4)).toEqual(s.events.slice(0, 4))
    expect(child.events[0]).not.toBe(s.events[0])
    expect(Object.isFrozen(child.events[1]!.data)).toBe(true)
    expect(child.header).toMatchObject({ cwd: '/w', parentSession: 'src', seedLength: 4 })
    expect(ctx.sessions.get('kid')).toBe(child)
    const atEnd = ctx.sessions.branch(s, 2)
    expect(atEnd.firstLiveSeq).toBe(3)
  })
})

describe('SessionStore', () => {
  it('announce/enter/flush wording; disposed only for announced entries; list is a fresh array in insertion order', async () => {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    const disposed: string[] = []
    ctx.on('session/disposed', (s) => void disposed.push(s.id))
    const p = ctx.sessions.prepare('p')
    expect(() => ctx.sessions.announce(p)).toThrow('session "p" is not live in this store')
    await expect(ctx.sessions.flush(p)).rejects.toThrow('session "p" is not live in this store')
    const detach = ctx.sessions.enter(p)
    await expect(ctx.sessions.flush(p)).resolves.toBe(false)
    expect(() => ctx.sessions.enter(p)).toThrow('session "p" already exists')
    detach()
    expect(disposed).toEqual([])
    const a = ctx.sessions.create('a')
    const b = ctx.sessions.create('b')
    expect(() => ctx.sessions.announce(a)).toThrow('session "a" was already announced')
    const list = ctx.sessions.list()
    expect(list).toEqual([a, b])
    expect(ctx.sessions.list()).not.toBe(list)
    await expect(ctx.sessions.flush(Session.create('a'))).rejects.toThrow('session "a" is not live in this store')
  })

  it('flush waits for every listener and rejects with the first failure in registration order', async () => {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    const s = ctx.sessions.create('f')
    const order: string[] = []
    ctx.on('session/flush', async () => {
      await new Promise((r) => setTimeout(r, 5))
      order.push('slow')
      throw new Error('first')
    })
    ctx.on('session/flush', () => {
      order.push('sync')
      throw new Error('second')
    })
    await expect(ctx.sessions.flush(s)).rejects.toThrow('first')
    expect(order).toEqual(['sync', 'slow'])
  })

  it('a sync session/created throw rolls back create with a paired session/disposed', () => {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    const log: string[] = []
    ctx.on('session/created', (s) => {
      log.push(`created ${s.id}`)
      throw new Error('no')
    })
    ctx.on('session/created', (s) => void log.push(`later ${s.id}`))
    ctx.on('session/disposed', (s) => void log.push(`disposed ${s.id}`))
    expect(() => ctx.sessions.create('z')).toThrow('no')
    expect(ctx.sessions.get('z')).toBeUndefined()
    expect(log).toEqual(['created z', 'disposed z'])
  })

  it('the end-seed marker appended at construction is never published', () => {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    const published: string[] = []
    ctx.on('session/event', (_s, e) => void published.push(e.type))
    const s = ctx.sessions.create('seeded', {
      seed: [ev('turn/start', 0, { turn: 1 }), ev('turn/end', 1, { turn: 1, reason: { kind: 'completed' } })],
    })
    expect(s.events.at(-1)!.type).toBe('session/end-seed')
    expect(published).toEqual([])
    s.append('x', {})
    expect(published).toEqual(['x'])
  })
})

describe('provability: canonicalJson and verifyDigests', () => {
  it('sorts keys by UTF-16 code unit at every level with no whitespace', () => {
    const value = { b: [{ z: 1, a: '\u2028' }], a: null, '\uFF61': 1, '\uD83D\uDE00': 2, é: 0.5 }
    expect(canonicalJson(value)).toBe(
      `{"a":null,"b":[{"a":${JSON.stringify('\u2028')},"z":1}],"é":0.5,"\uD83D\uDE00":2,"\uFF61":1}`,
    )
    expect(canonicalJson([1e21, 1e-7, 'x'])).toBe('[1e+21,1e-7,"x"]')
  })

  it('verifyDigests recomputes the formula from the log and names the mismatched parts', () => {
    const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')
    const { s } = toolRound()
    const log = Session.create('d')
    /** The digest record for the step's request over log.events, computed here, independently of the package. */
    const digestNow = (step: number, system: string) => {
      const r = reconstructRequest(log.events, { turn: 1, step })
      const config = sha(canonicalJson({ provider: 'p', model: 'm' }))
      const sys = sha(system)
      const tools = sha(canonicalJson([]))
      let chain = sha('')
      for (const m of r.messages) chain = sha(chain + sha(canonicalJson(m)))
      const count = r.messages.length
      const request = sha(config + sys + tools + chain + ':' + count)
      return {
        turn: 1,
        step,
        attempt: 1,
        algorithm: 'sha256',
        request,
        config,
        system: sys,
        tools,
        messages: { count, chain },
      }
    }
    let inserted = 0
    for (const e of s.events) {
      if (e.type === 'assistant/chunk') {
        const step = (e.data as { step: number }).step
        log.append('request/digest', digestNow(step, step === 1 ? 'sys' : 'tampered') as never)
        inserted++
      }
      const shift = (n: number) => n + (n >= 5 ? 1 : 0) + (n >= 12 ? 1 : 0)
      log.append(e.type, e.data, {
        ...(e.surfaceOp !== undefined ? { surfaceOp: e.surfaceOp } : {}),
        ...(e.sourceEventSeqs !== undefined ? { sourceEventSeqs: e.sourceEventSeqs.map(shift) } : {}),
      })
    }
    expect(inserted).toBe(2)
    const results = verifyDigests(log.events)
    expect(results.map(({ turn, step, attempt, ok, mismatched }) => ({ turn, step, attempt, ok, mismatched }))).toEqual(
      [
        { turn: 1, step: 1, attempt: 1, ok: true, mismatched: [] },
        { turn: 1, step: 2, attempt: 1, ok: false, mismatched: ['system', 'request'] },
      ],
    )
  })
})
