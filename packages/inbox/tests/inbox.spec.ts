import { describe, expect, it } from 'vitest'
import { Inbox } from '@bridle/inbox'
import { Session } from '@bridle/session'
import { msg, setup, splices, text } from './helpers.js'

describe('Inbox mutations', () => {
  it('append records the splice first, then applies the frozen snapshot, then notifies', () => {
    const { session, inbox, notes } = setup()
    const p = msg('p')
    let seenDuringAppend: number | undefined
    const original = session.append.bind(session)
    ;(session as { append: unknown }).append = (...args: Parameters<typeof original>) => {
      const event = original(...args)
      seenDuringAppend = inbox.nextTurn.length
      return event
    }
    inbox.append('next-turn', p)
    expect(seenDuringAppend).toBe(0)
    expect(splices(session)).toEqual([{ target: 'next-turn', start: 0, inserted: ['p'] }])
    expect(session.events[0]!.data).not.toHaveProperty('removedCount')
    expect(session.events[0]!.data).not.toHaveProperty('outcome')
    expect(inbox.nextTurn.map(text)).toEqual(['p'])
    expect(inbox.nextTurn[0]).toBe((session.events[0]!.data as { inserted: unknown[] }).inserted[0])
    expect(Object.isFrozen(inbox.nextTurn[0])).toBe(true)
    expect(notes).toEqual([['inserted', 'p']])
    expect(inbox.hasPending).toBe(true)
  })

  it('E1: normalizes coordinates, marks removal canceled and returns the removed messages', () => {
    const { session, inbox, notes } = setup()
    const p1 = msg('p1')
    inbox.append('next-turn', p1)
    inbox.append('next-turn', msg('p2'))
    notes.length = 0
    const removed = inbox.splice('next-turn', -1, 5, [msg('p3')])
    expect(removed.map(text)).toEqual(['p2'])
    expect(splices(session).at(-1)).toEqual({
      target: 'next-turn',
      start: 1,
      removedCount: 1,
      inserted: ['p3'],
      outcome: 'canceled',
    })
    expect(notes).toEqual([
      ['discarded', 'p2'],
      ['inserted', 'p3'],
    ])
    const before = session.events.length
    expect(() => inbox.append('next-step', p1)).toThrow(`message "${p1.id}" is already pending`)
    expect(session.events.length).toBe(before)
    expect(inbox.nextStep).toEqual([])
  })

  it('refuses duplicate ids inside one insert and across lists, recording nothing', () => {
    const { session, inbox } = setup()
    const a = msg('a')
    expect(() => inbox.splice('next-step', 0, 0, [a, a])).toThrow(`message "${a.id}" is already pending`)
    expect(session.events).toHaveLength(0)
    inbox.append('next-step', a)
    expect(() => inbox.prepend('next-turn', a)).toThrow(`message "${a.id}" is already pending`)
    expect(inbox.nextTurn).toHaveLength(0)
  })

  it('a call that removes and inserts nothing is a no-op', () => {
    const { session, inbox, notes } = setup()
    expect(inbox.splice('next-turn', 0, 3, [])).toEqual([])
    inbox.append('next-turn', msg('x'))
    expect(inbox.splice('next-turn', NaN, NaN, [])).toEqual([])
    expect(inbox.splice('next-turn', Infinity, Infinity, [])).toEqual([])
    expect(session.events).toHaveLength(1)
    expect(notes).toEqual([['inserted', 'x']])
  })

  it('prepend inserts at the front; splice with a start past the end clamps', () => {
    const { session, inbox } = setup()
    inbox.append('next-step', msg('b'))
    inbox.prepend('next-step', msg('a'))
    inbox.splice('next-step', 99, 0, [msg('c')])
    expect(inbox.nextStep.map(text)).toEqual(['a', 'b', 'c'])
    expect(splices(session).map((s) => (s as { start: number }).start)).toEqual([0, 0, 2])
  })

  it('replace keeps position, may keep the id, notifies discarded then inserted', () => {
    const { session, inbox, notes } = setup()
    const a = msg('a')
    inbox.append('next-step', a)
    inbox.append('next-step', msg('b'))
    notes.length = 0
    const a2 = { ...msg('a2'), id: a.id }
    expect(inbox.replace(a.id, a2)).toBe(true)
    expect(inbox.nextStep.map(text)).toEqual(['a2', 'b'])
    expect(splices(session).at(-1)).toEqual({
      target: 'next-step',
      start: 0,
      removedCount: 1,
      inserted: ['a2'],
      outcome: 'canceled',
    })
    expect(notes).toEqual([
      ['discarded', 'a'],
      ['inserted', 'a2'],
    ])
    expect(inbox.replace(msg('zz').id, msg('q'))).toBe(false)
  })

  it('replace searches next-turn before next-step and refuses an id pending elsewhere', () => {
    const { inbox } = setup()
    const t = msg('t')
    const s = msg('s')
    inbox.append('next-turn', t)
    inbox.append('next-step', s)
    expect(() => inbox.replace(t.id, s)).toThrow(`message "${s.id}" is already pending`)
    expect(inbox.nextTurn.map(text)).toEqual(['t'])
  })

  it('remove writes one canceled record; absent ids return false', () => {
    const { session, inbox, notes } = setup()
    const a = msg('a')
    inbox.append('next-turn', a)
    expect(inbox.remove(a.id)).toBe(true)
    expect(inbox.remove(a.id)).toBe(false)
    expect(splices(session).at(-1)).toEqual({
      target: 'next-turn',
      start: 0,
      removedCount: 1,
      inserted: [],
      outcome: 'canceled',
    })
    expect(notes.at(-1)).toEqual(['discarded', 'a'])
    expect(inbox.hasPending).toBe(false)
  })

  it('clear empties next-step first, then next-turn; a second clear records nothing', () => {
    const { session, inbox, notes } = setup()
    inbox.append('next-turn', msg('p'))
    inbox.append('next-step', msg('s1'))
    inbox.append('next-step', msg('s2'))
    notes.length = 0
    const before = session.events.length
    inbox.clear()
    expect(splices(session).slice(-2)).toEqual([
      { target: 'next-step', start: 0, removedCount: 2, inserted: [], outcome: 'canceled' },
      { target: 'next-turn', start: 0, removedCount: 1, inserted: [], outcome: 'canceled' },
    ])
    expect(notes).toEqual([
      ['discarded', 's1'],
      ['discarded', 's2'],
      ['discarded', 'p'],
    ])
    inbox.clear()
    expect(session.events.length).toBe(before + 2)
  })

  it('non-JSON data makes the append throw and leaves inbox and log untouched', () => {
    const { session, inbox, notes } = setup()
    const bad = { ...msg('x'), content: [{ type: 'text', text: 'x', n: 1n }] } as never
    expect(() => inbox.append('next-turn', bad)).toThrow(
      'session event "agent/inbox/spliced" carries non-JSON-serializable data',
    )
    expect(session.events).toHaveLength(0)
    expect(inbox.hasPending).toBe(false)
    expect(notes).toEqual([])
  })

  it('rejects things that are not identified user messages', () => {
    const { inbox } = setup()
    expect(() => inbox.append('next-turn', { role: 'user', content: [] } as never)).toThrow(TypeError)
    expect(() => inbox.append('next-turn', { ...msg('a'), role: 'assistant' } as never)).toThrow(TypeError)
    expect(() => inbox.append('later' as never, msg('a'))).toThrow(TypeError)
  })

  it('a splice into an unknown queue or with inserted not an array says what is wrong and records nothing', () => {
    const { session, inbox, notes } = setup()
    expect(() => inbox.splice('later' as never, 0, 0, [msg('a')])).toThrow(
      new TypeError('invalid inbox target "later" (expected "next-turn" or "next-step")'),
    )
    expect(() => inbox.splice('next-turn', 0, 0, 'a' as never)).toThrow(
      new TypeError('inbox splice inserted must be an array of messages'),
    )
    expect(session.events).toHaveLength(0)
    expect(notes).toEqual([])
  })

  it('hasPending is true while only next-step holds a message', () => {
    const { inbox } = setup()
    inbox.append('next-step', msg('steer'))
    expect(inbox.nextTurn).toEqual([])
    expect(inbox.hasPending).toBe(true)
  })
})

describe('Inbox.claim', () => {
  it('E2: takes all of next-step then the first prompt, without outcome or discarded', () => {
    const { session, inbox, notes } = setup()
    inbox.append('next-step', msg('c1'))
    inbox.append('next-turn', msg('p1'))
    inbox.append('next-turn', msg('p2'))
    notes.length = 0
    const batch = inbox.claim('next-turn', 3)
    expect(batch.map(text)).toEqual(['c1', 'p1'])
    expect(splices(session).slice(-2)).toEqual([
      { target: 'next-step', start: 0, removedCount: 1, inserted: [] },
      { target: 'next-turn', start: 0, removedCount: 1, inserted: [] },
    ])
    expect(notes).toEqual([
      ['claimed', 'c1', 3],
      ['claimed', 'p1', 3],
    ])
    expect(inbox.nextTurn.map(text)).toEqual(['p2'])
  })

  it('a next-step claim leaves prompts alone; an empty claim records nothing', () => {
    const { session, inbox } = setup()
    inbox.append('next-turn', msg('p'))
    const before = session.events.length
    expect(inbox.claim('next-step', 1)).toEqual([])
    expect(session.events.length).toBe(before)
    inbox.append('next-step', msg('s'))
    expect(inbox.claim('next-step', 1).map(text)).toEqual(['s'])
    expect(inbox.nextTurn.map(text)).toEqual(['p'])
  })

  it('a failing second record keeps the first committed and sends no claimed', () => {
    const { session, inbox, notes } = setup()
    inbox.append('next-step', msg('s'))
    inbox.append('next-turn', msg('p'))
    notes.length = 0
    const original = session.append.bind(session)
    let calls = 0
    ;(session as { append: unknown }).append = (...args: Parameters<typeof original>) => {
      if (++calls === 2) throw new Error('vetoed')
      return original(...args)
    }
    expect(() => inbox.claim('next-turn', 1)).toThrow('vetoed')
    expect(inbox.nextStep).toHaveLength(0)
    expect(inbox.nextTurn.map(text)).toEqual(['p'])
    expect(notes).toEqual([])
  })
})

describe('Inbox replay', () => {
  it('rebuilds the pending state from the log without notifications', () => {
    const { session, inbox } = setup()
    inbox.append('next-turn', msg('p1'))
    inbox.append('next-turn', msg('p2'))
    inbox.append('next-step', msg('s'))
    inbox.claim('next-turn', 1)
    inbox.append('next-step', msg('s2'))
    const notes: string[] = []
    const again = new Inbox(session, {
      inserted: () => notes.push('i'),
      discarded: () => notes.push('d'),
      claimed: () => notes.push('c'),
    })
    expect(again.nextTurn.map(text)).toEqual(['p2'])
    expect(again.nextStep.map(text)).toEqual(['s2'])
    expect(again.nextTurn[0]).toBe(inbox.nextTurn[0])
    expect(notes).toEqual([])
  })

  it('skips the inherited prefix of a fork (seedLength)', () => {
    const { session, inbox } = setup('parent')
    inbox.append('next-turn', msg('pending'))
    const child = Session.create('child', session.events, {
      version: 0,
      id: 'child',
      createdAt: 1,
      parentSession: 'parent',
      seedLength: session.events.length,
    })
    const forked = new Inbox(child, { inserted() {}, discarded() {}, claimed() {} })
    expect(forked.hasPending).toBe(false)
    const restored = Session.create('r', session.events)
    expect(new Inbox(restored, { inserted() {}, discarded() {}, claimed() {} }).nextTurn.map(text)).toEqual(['pending'])
  })

  it('a bad persisted record fails construction, naming its seq, with the cause', () => {
    const m = msg('a')
    const seed = [
      { type: 'agent/inbox/spliced', seq: 0, time: 0, data: { target: 'next-turn', start: 0, inserted: [m] } },
      { type: 'agent/inbox/spliced', seq: 1, time: 0, data: { target: 'next-step', start: 0, inserted: [m] } },
    ]
    const session = Session.create('bad', seed)
    let thrown: unknown
    try {
      new Inbox(session, { inserted() {}, discarded() {}, claimed() {} })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(Error)
    expect((thrown as Error).message).toBe('invalid persisted inbox splice at session seq 1')
    expect(((thrown as Error).cause as Error).message).toBe(`message "${m.id}" is already pending`)

    for (const data of [
      { target: 'later', start: 0, inserted: [] },
      { target: 'next-turn', start: 2, inserted: [] },
      { target: 'next-turn', start: 0, removedCount: 1, inserted: [] },
      { target: 'next-turn', start: 0.5, inserted: [] },
    ]) {
      const s = Session.create('bad2', [{ type: 'agent/inbox/spliced', seq: 0, time: 0, data }])
      expect(() => new Inbox(s, { inserted() {}, discarded() {}, claimed() {} })).toThrow(
        'invalid persisted inbox splice at session seq 0',
      )
    }
  })
})
