import { describe, expect, it } from 'vitest'
import { historyBaseOf } from '@bridle/llm'
import { Session, deriveEventMessage, type AnySessionEvent } from '../src/index.js'
import { appendSimpleTurn, assistant, header, toolResult, user } from './helpers.js'

describe('deriveEventMessage', () => {
  it('projects each node type; ignores surfaceOp; null for log-only and empty assistant messages', () => {
    const s = Session.create('s')
    const u = s.append('user/message', user('u'), { surfaceOp: 'append' })
    const empty = s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant('') },
      { surfaceOp: 'append', sourceEventSeqs: [] },
    )
    const a = s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant('a') },
      { surfaceOp: 'append', sourceEventSeqs: [] },
    )
    const t = s.append('tool/result', { turn: 1, step: 1, message: toolResult('c', 'x') }, { surfaceOp: 'append' })
    const log = s.append('turn/start', { turn: 2 })
    expect(deriveEventMessage(u)).toBe(u.data)
    expect(deriveEventMessage(u)!.content).toBe(u.data.content)
    expect(deriveEventMessage(empty)).toBeNull()
    expect(deriveEventMessage(a)).toBe(a.data.message)
    expect(deriveEventMessage(t)).toBe(t.data.message)
    expect(deriveEventMessage(log)).toBeNull()
    const markerless = { type: 'user/message', seq: 0, time: 0, data: u.data } as AnySessionEvent
    expect(deriveEventMessage(markerless)).toBe(u.data)
  })
})

describe('session.deriveMessages()', () => {
  it('example 1: nodes [1, 5], [user, assistant], the same array on a second call', () => {
    const s = Session.create('s')
    s.append('turn/start', { turn: 1 })
    const u = s.append('user/message', user('hi'), { surfaceOp: 'append' })
    const chunks = [0, 1, 2].map((i) =>
      s.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: `h${i}` } }),
    )
    const a = s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant('hello') },
      { surfaceOp: 'append', sourceEventSeqs: chunks.map((c) => c.seq) },
    )
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    expect(s.surface.nodes).toEqual([1, 5])
    const messages = s.deriveMessages()
    expect(messages).toEqual([u.data, a.data.message])
    expect(messages[0]).toBe(u.data)
    expect(s.deriveMessages()).toBe(messages)
  })

  it('returns a frozen array of the log’s frozen messages; earlier arrays never change', () => {
    const s = Session.create('s')
    s.append('user/message', user('a'), { surfaceOp: 'append' })
    const first = s.deriveMessages()
    expect(Object.isFrozen(first)).toBe(true)
    expect(() => (first as unknown[]).push(1)).toThrow(TypeError)
    expect(() => {
      ;(first[0] as { id: string }).id = 'x'
    }).toThrow(TypeError)
    s.append('user/message', user('b'), { surfaceOp: 'append' })
    const second = s.deriveMessages()
    expect(first).toHaveLength(1)
    expect(second).toHaveLength(2)
    expect(second[0]).toBe(first[0])
  })

  it('after appends only, the new array records the previous one as its base (historyBaseOf); after a replace not', () => {
    const s = Session.create('s')
    s.append('user/message', user('a'), { surfaceOp: 'append' })
    const first = s.deriveMessages()
    s.append('turn/start', { turn: 1 })
    s.append('user/message', user('b'), { surfaceOp: 'append' })
    s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant('') },
      { surfaceOp: 'append', sourceEventSeqs: [] },
    )
    s.append('user/message', user('c'), { surfaceOp: 'append' })
    const second = s.deriveMessages()
    expect(historyBaseOf(second)).toBe(first)
    expect(second.map((m) => (m.content[0] as { text: string }).text)).toEqual(['a', 'b', 'c'])
    s.append('user/message', user('r'), { surfaceOp: { op: 'replace', start: 0, end: 0 }, sourceEventSeqs: [0] })
    s.append('user/message', user('d'), { surfaceOp: 'append' })
    const third = s.deriveMessages()
    expect(historyBaseOf(third)).toBeUndefined()
    expect(third.map((m) => (m.content[0] as { text: string }).text)).toEqual(['r', 'b', 'c', 'd'])
  })

  it('log-only events and empty assistant messages keep the same array', () => {
    const s = Session.create('s')
    s.append('user/message', user('a'), { surfaceOp: 'append' })
    const before = s.deriveMessages()
    s.append('turn/start', { turn: 1 })
    s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant('') },
      { surfaceOp: 'append', sourceEventSeqs: [] },
    )
    expect(s.deriveMessages()).toBe(before)
  })

  it('a replace splices the list once: shadowed messages go, the replacement takes their place', () => {
    const s = Session.create('s')
    const ids = [0, 1, 2, 3].map((i) => s.append('user/message', user(`u${i}`), { surfaceOp: 'append' }).data.id)
    const cp = s.append('user/message', user('checkpoint'), {
      surfaceOp: { op: 'replace', start: 1, end: 2 },
      sourceEventSeqs: [1, 2],
    })
    expect(s.deriveMessages().map((m) => m.id)).toEqual([ids[0], cp.data.id, ids[3]])
    // replacing a range by an empty assistant message removes it from the messages
    s.append(
      'assistant/message',
      { turn: 1, step: 1, message: assistant('') },
      { surfaceOp: { op: 'replace', start: 0, end: 4 }, sourceEventSeqs: [0, 4] },
    )
    expect(s.deriveMessages().map((m) => m.id)).toEqual([ids[3]])
  })

  it('seeded sessions derive the same messages as the source', () => {
    const s = Session.create('s')
    appendSimpleTurn(s, 1, 'a', 'b')
    s.append('user/message', user('cp'), { surfaceOp: { op: 'replace', start: 2, end: 5 }, sourceEventSeqs: [2, 5] })
    const copy = Session.create('c', s.events as never)
    expect(JSON.stringify(copy.deriveMessages())).toBe(JSON.stringify(s.deriveMessages()))
  })
})

describe('deriveMessages() does not rescan the log (work counting, no timing)', () => {
  /** Restore-mode seed events are adopted as-is, so proxies let the test count every read of an old event. */
  function countedSeed(count: number) {
    let reads = 0
    const seed: AnySessionEvent[] = []
    for (let seq = 0; seq < count; seq++) {
      const event =
        seq % 3 === 0
          ? { type: 'user/message', seq, time: 0, data: structuredClone(user(`u${seq}`)), surfaceOp: 'append' }
          : {
              type: 'assistant/chunk',
              seq,
              time: 0,
              data: { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } },
            }
      seed.push(
        new Proxy(event, {
          get(target, key, receiver) {
            reads++
            return Reflect.get(target, key, receiver)
          },
        }) as AnySessionEvent,
      )
    }
    return { seed, reads: () => reads }
  }

  it('after construction, appends and derivations read no old event, whatever the log length', () => {
    for (const size of [30, 3000]) {
      const { seed, reads } = countedSeed(size)
      const s = Session.fromRestore('s', seed, { version: 0, id: 's', createdAt: 0 })
      const initial = s.deriveMessages()
      expect(initial).toHaveLength(size / 3)
      const baseline = reads()
      for (let i = 0; i < 50; i++) {
        s.append('user/message', user(`live${i}`), { surfaceOp: 'append' })
        s.append('turn/start', { turn: i + 2 })
        expect(s.deriveMessages()).toHaveLength(size / 3 + i + 1)
        s.requestHeader()
        s.requestContext()
      }
      s.append('user/message', user('cp'), { surfaceOp: { op: 'replace', start: 0, end: 3 }, sourceEventSeqs: [0, 3] })
      expect(s.deriveMessages()).toHaveLength(size / 3 + 50 - 1)
      // Only the two shadowed nodes' types may be looked at... and a user/message replace reads none of them.
      expect(reads() - baseline).toBe(0)
    }
  })

  it('each surface event is projected once and the header fold is not redone: results keep their identity', () => {
    const s = Session.create('s')
    s.append('request/header', { header: header(), reason: 'initial' })
    const firstHeader = s.requestHeader()
    expect(firstHeader).toBeDefined()
    const projected: unknown[] = []
    for (let i = 0; i < 100; i++) {
      s.append('user/message', user(`u${i}`), { surfaceOp: 'append' })
      s.append('assistant/chunk', { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } })
      const history = s.deriveMessages()
      expect(history).toHaveLength(i + 1)
      // a message built again would be a new object: every earlier one is the very object built when it arrived
      expect(history.slice(0, -1).every((message, k) => message === projected[k])).toBe(true)
      projected.push(history.at(-1))
      expect(s.requestHeader()).toBe(firstHeader)
    }
    expect(s.deriveMessages().every((message, k) => message === projected[k])).toBe(true)
    expect(s.requestHeader()).toBe(firstHeader)
  })
})
