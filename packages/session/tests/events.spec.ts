import { describe, expect, it } from 'vitest'
import {
  KNOWN_SESSION_EVENT_TYPES,
  Session,
  adoptSessionEvent,
  assertMessageEventShape,
  snapshotSessionEvent,
} from '../src/index.js'
import { user } from './helpers.js'

describe('KNOWN_SESSION_EVENT_TYPES', () => {
  it('holds exactly the 17 known types, including agent/inbox/spliced, request/digest, request/compaction and request/cache, and is read-only', () => {
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
    expect(() => (KNOWN_SESSION_EVENT_TYPES as Set<string>).add('x')).toThrow(TypeError)
    expect(KNOWN_SESSION_EVENT_TYPES.has('x')).toBe(false)
  })

  it('append accepts an agent/inbox/spliced payload as opaque JSON (a log-only type)', () => {
    const s = Session.create('s')
    const e = s.append('agent/inbox/spliced', {
      target: 'next-turn',
      start: 0,
      inserted: [user('queued')],
      outcome: 'canceled',
    })
    expect(e.type).toBe('agent/inbox/spliced')
    expect(() =>
      s.append('agent/inbox/spliced', { target: 'next-step', start: 0, inserted: [] }, { surfaceOp: 'append' }),
    ).toThrow('session event "agent/inbox/spliced" is not surface-eligible and cannot carry surfaceOp')
    expect(s.deriveMessages()).toEqual([])
  })
})

describe('adoptSessionEvent / snapshotSessionEvent', () => {
  it('validate the message shape with the "session event at seq <n>" subject', () => {
    const bad = { type: 'user/message', seq: 4, time: 0, data: { role: 'user' }, surfaceOp: 'append' }
    expect(() => adoptSessionEvent(bad)).toThrow('session event at seq 4 lacks an identified message')
    expect(() => snapshotSessionEvent(bad)).toThrow('session event at seq 4 lacks an identified message')
    expect(() =>
      assertMessageEventShape({ type: 'assistant/message', data: { message: { id: 'a', role: 'user' } } }, 'x'),
    ).toThrow('x message must have role "assistant"')
  })

  it('adopt freezes in place and returns the same object; snapshot returns a detached frozen copy', () => {
    const event = { type: 'user/message', seq: 0, time: 0, data: structuredClone(user('a')), surfaceOp: 'append' }
    const copy = snapshotSessionEvent(event)
    expect(copy).not.toBe(event)
    expect(copy).toEqual(event)
    expect(Object.isFrozen(copy.data)).toBe(true)
    expect(Object.isFrozen(event)).toBe(false)
    expect(adoptSessionEvent(event)).toBe(event)
    expect(Object.isFrozen(event.data)).toBe(true)
  })

  it('log-only events pass unchecked', () => {
    expect(() => adoptSessionEvent({ type: 'turn/start', seq: 0, time: 0, data: null })).not.toThrow()
  })
})
