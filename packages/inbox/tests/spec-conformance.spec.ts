import { describe, expect, it } from 'vitest'
import { Context } from 'cordis'
import { foldConsumedWork, Inbox, INBOX_SPLICED, type InboxNotifications } from '@bridle/inbox'
import { createUserMessage, type UserMessage } from '@bridle/llm'
import { Session, SessionStore, type SessionEvent } from '@bridle/session'

/*
 * Black-box checks of the inbox's documented rules (README.md) that the other test files do not pin: the live arrays, the frozen copy,
 * record key order, observers seeing the pre-splice state, append failures (veto, reentrancy), replay
 * details, claim edge cases and the consumed-work fold.
 */

const quiet: InboxNotifications = { inserted() {}, discarded() {}, claimed() {} }
const msg = (text: string): UserMessage => createUserMessage(text)
const text = (m: UserMessage) => (m.content[0] as { text: string }).text

function recorded() {
  const notes: string[] = []
  const notify: InboxNotifications = {
    inserted: (m) => notes.push(`inserted ${text(m)}`),
    discarded: (m) => notes.push(`discarded ${text(m)}`),
    claimed: (m, turn) => notes.push(`claimed ${text(m)} ${turn}`),
  }
  return { notes, notify }
}

function attached(id = 'att') {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  const session = ctx.sessions.create(id)
  return { ctx, session }
}

describe('exports', () => {
  it('exports Inbox, foldConsumedWork and the event type', () => {
    expect(typeof Inbox).toBe('function')
    expect(typeof foldConsumedWork).toBe('function')
    expect(INBOX_SPLICED).toBe('agent/inbox/spliced')
  })
})

describe('state and records', () => {
  it('nextTurn/nextStep are the live arrays; hasPending follows them', () => {
    const inbox = new Inbox(Session.create('live'), quiet)
    const turn = inbox.nextTurn
    const step = inbox.nextStep
    expect(inbox.hasPending).toBe(false)
    inbox.append('next-turn', msg('p'))
    inbox.append('next-step', msg('s'))
    expect(inbox.nextTurn).toBe(turn)
    expect(inbox.nextStep).toBe(step)
    expect(turn.map(text)).toEqual(['p'])
    expect(step.map(text)).toEqual(['s'])
    inbox.clear()
    expect(turn).toEqual([])
    expect(inbox.hasPending).toBe(false)
  })

  it("the pending entry is a distinct frozen copy, not the caller's object", () => {
    const inbox = new Inbox(Session.create('copy'), quiet)
    const p = msg('p')
    inbox.append('next-turn', p)
    expect(inbox.nextTurn[0]).not.toBe(p)
    expect(inbox.nextTurn[0]).toEqual(p)
    expect(Object.isFrozen(inbox.nextTurn[0])).toBe(true)
    expect(Object.isFrozen(inbox.nextTurn[0]!.content)).toBe(true)
  })

  it('records keep the documented key order and omit removedCount/outcome when not applicable', () => {
    const session = Session.create('keys')
    const inbox = new Inbox(session, quiet)
    inbox.append('next-turn', msg('p1'))
    inbox.append('next-turn', msg('p2'))
    inbox.splice('next-turn', -1, 5, [msg('p3')])
    inbox.claim('next-turn', 1)
    expect(session.events.map((e) => Object.keys(e.data as object))).toEqual([
      ['target', 'start', 'inserted'],
      ['target', 'start', 'inserted'],
      ['target', 'start', 'removedCount', 'inserted', 'outcome'],
      ['target', 'start', 'removedCount', 'inserted'],
    ])
  })

  it('coordinates follow Array.prototype.splice: truncation, negative floor, NaN and Infinity', () => {
    const session = Session.create('coords')
    const inbox = new Inbox(session, quiet)
    for (const t of ['a', 'b', 'c']) inbox.append('next-step', msg(t))
    expect(inbox.splice('next-step', -99, 1, []).map(text)).toEqual(['a'])
    expect(inbox.splice('next-step', 0.9, 1.9, []).map(text)).toEqual(['b'])
    expect(inbox.splice('next-step', 0, -2, [msg('x')])).toEqual([])
    expect(inbox.nextStep.map(text)).toEqual(['x', 'c'])
    expect(inbox.splice('next-step', -Infinity, Infinity, []).map(text)).toEqual(['x', 'c'])
    const starts = session.events.slice(3).map((e) => [(e.data as any).start, (e.data as any).removedCount])
    expect(starts).toEqual([
      [0, 1],
      [0, 1],
      [0, undefined],
      [0, 2],
    ])
  })

  it('replace/remove of an id that is not pending record nothing; clear with only prompts writes one record', () => {
    const session = Session.create('misc')
    const { notes, notify } = recorded()
    const inbox = new Inbox(session, notify)
    expect(inbox.replace(msg('ghost').id, msg('x'))).toBe(false)
    expect(inbox.remove(msg('ghost').id)).toBe(false)
    expect(session.events).toHaveLength(0)
    inbox.append('next-turn', msg('p'))
    inbox.clear()
    expect(session.events.map((e) => e.data)).toEqual([
      expect.objectContaining({ target: 'next-turn', start: 0 }),
      { target: 'next-turn', start: 0, removedCount: 1, inserted: [], outcome: 'canceled' },
    ])
    expect(notes).toEqual(['inserted p', 'discarded p'])
  })

  it('replace may change the id; it stays in the same list and position', () => {
    const session = Session.create('rep')
    const inbox = new Inbox(session, quiet)
    const a = msg('a')
    inbox.append('next-step', msg('first'))
    inbox.append('next-step', a)
    inbox.append('next-step', msg('last'))
    const b = msg('b')
    expect(inbox.replace(a.id, b)).toBe(true)
    expect(inbox.nextStep.map(text)).toEqual(['first', 'b', 'last'])
    expect(session.events.at(-1)!.data).toEqual({
      target: 'next-step',
      start: 1,
      removedCount: 1,
      inserted: [b],
      outcome: 'canceled',
    })
    expect(inbox.remove(a.id)).toBe(false)
  })
})

describe('append failures leave everything unchanged', () => {
  it('synchronous session/event observers still see the pre-splice lists', () => {
    const { ctx, session } = attached('obs')
    const inbox = new Inbox(session, quiet)
    const seen: number[] = []
    ctx.on('session/event', (_s, event) => {
      if (event.type === INBOX_SPLICED) seen.push(inbox.nextTurn.length)
    })
    inbox.append('next-turn', msg('p1'))
    inbox.append('next-turn', msg('p2'))
    expect(seen).toEqual([0, 1])
  })

  it('a pre-commit veto propagates; no record, no state change, no notification', () => {
    const { ctx, session } = attached('veto')
    const { notes, notify } = recorded()
    const inbox = new Inbox(session, notify)
    ctx.on(
      'internal/event' as never,
      ((_t: string, name: string, args: any[]) => {
        if (name === 'session/event' && args[1]?.type === INBOX_SPLICED) throw new Error('vetoed by policy')
      }) as never,
    )
    expect(() => inbox.append('next-turn', msg('p'))).toThrow('vetoed by policy')
    expect(session.events).toHaveLength(0)
    expect(inbox.hasPending).toBe(false)
    expect(notes).toEqual([])
  })

  it('a reentrant mutation from inside a session/event observer is refused by the session; the inbox is unchanged', () => {
    const { ctx, session } = attached('reenter')
    const inbox = new Inbox(session, quiet)
    const errors: string[] = []
    let once = true
    ctx.on('session/event', () => {
      if (!once) return
      once = false
      try {
        inbox.append('next-step', msg('inner'))
      } catch (error) {
        errors.push((error as Error).message)
      }
    })
    inbox.append('next-turn', msg('outer'))
    expect(errors).toEqual(['session append cannot reenter while another append is being published'])
    expect(inbox.nextTurn.map(text)).toEqual(['outer'])
    expect(inbox.nextStep).toEqual([])
    expect(session.events).toHaveLength(1)
  })
})

describe('claim edge cases', () => {
  it('nothing pending: no records, no notifications, []', () => {
    const session = Session.create('empty')
    const { notes, notify } = recorded()
    const inbox = new Inbox(session, notify)
    expect(inbox.claim('next-turn', 1)).toEqual([])
    expect(inbox.claim('next-step', 1)).toEqual([])
    expect(session.events).toHaveLength(0)
    expect(notes).toEqual([])
  })

  it('only a prompt pending: one next-turn record; claimed messages are the frozen logged snapshots', () => {
    const session = Session.create('prompt')
    const { notes, notify } = recorded()
    const inbox = new Inbox(session, notify)
    inbox.append('next-turn', msg('p1'))
    inbox.append('next-turn', msg('p2'))
    const pending = inbox.nextTurn[0]
    notes.length = 0
    const batch = inbox.claim('next-turn', 7)
    expect(batch).toHaveLength(1)
    expect(batch[0]).toBe(pending)
    expect(session.events.at(-1)!.data).toEqual({ target: 'next-turn', start: 0, removedCount: 1, inserted: [] })
    expect(notes).toEqual(['claimed p1 7'])
  })

  it('claimed notifications are sent only after both records are written', () => {
    const session = Session.create('order')
    const log: string[] = []
    const inbox = new Inbox(session, {
      inserted() {},
      discarded() {},
      claimed: (m) => log.push(`claimed ${text(m)} after ${session.events.length} events`),
    })
    inbox.append('next-step', msg('c1'))
    inbox.append('next-turn', msg('p1'))
    inbox.claim('next-turn', 1)
    expect(log).toEqual(['claimed c1 after 4 events', 'claimed p1 after 4 events'])
  })
})

describe('replay details', () => {
  const spliced = (seq: number, data: unknown) => ({ type: 'agent/inbox/spliced', seq, time: 0, data })

  it('outcome does not matter for replay; restored entries are the logged objects; no notifications', () => {
    const a = msg('a')
    const b = msg('b')
    const session = Session.create('rp', [
      spliced(0, { target: 'next-step', start: 0, inserted: [a, b] }),
      spliced(1, { target: 'next-step', start: 0, removedCount: 1, inserted: [] }),
      spliced(2, { target: 'next-turn', start: 0, inserted: [a], outcome: 'canceled' }),
    ] as SessionEvent[])
    const { notes, notify } = recorded()
    const inbox = new Inbox(session, notify)
    expect(inbox.nextStep.map(text)).toEqual(['b'])
    expect(inbox.nextTurn.map(text)).toEqual(['a'])
    expect(inbox.nextTurn[0]).toBe((session.events[2]!.data as { inserted: UserMessage[] }).inserted[0])
    expect(notes).toEqual([])
  })

  it('bad removedCount values and in-record duplicates fail construction with the seq and the cause', () => {
    const a = msg('a')
    const cases: [unknown, string][] = [
      [{ target: 'next-turn', start: 0, removedCount: -1, inserted: [] }, 'invalid inbox splice'],
      [{ target: 'next-turn', start: 0, removedCount: 0.5, inserted: [] }, 'invalid inbox splice'],
      [{ target: 'next-turn', start: -1, inserted: [] }, 'invalid inbox splice'],
      [{ target: 'next-turn', start: 0, inserted: [a, a] }, `message "${a.id}" is already pending`],
    ]
    for (const [data, cause] of cases) {
      const session = Session.create('bad', [
        spliced(0, { target: 'next-step', start: 0, inserted: [] }),
        spliced(1, data),
      ] as SessionEvent[])
      let thrown: unknown
      try {
        new Inbox(session, quiet)
      } catch (error) {
        thrown = error
      }
      expect((thrown as Error).message).toBe('invalid persisted inbox splice at session seq 1')
      expect(((thrown as Error).cause as Error).message).toBe(cause)
    }
  })
})

describe('foldConsumedWork', () => {
  let seq = 0
  const ev = (type: string, data: unknown) => ({ type, seq: seq++, time: 0, data }) as SessionEvent
  const claimStep = () => ev('agent/inbox/spliced', { target: 'next-step', start: 0, removedCount: 2, inserted: [] })

  it('a next-step claim in an aborted turn accounts for work; a later idle turn does not replace it', () => {
    const end = ev('turn/end', { turn: 1, reason: { kind: 'aborted', reason: { kind: 'user' } } })
    const r = foldConsumedWork([
      ev('turn/start', { turn: 1 }),
      claimStep(),
      end,
      ev('turn/start', { turn: 2 }),
      ev('turn/end', { turn: 2, reason: { kind: 'completed' } }),
    ])
    expect(r).toEqual({ end, droppedUnrun: false })
  })

  it('droppedUnrun stays set until a later turn accounts for work', () => {
    const first = ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const events = [
      ev('turn/start', { turn: 1 }),
      ev('step/start', { turn: 1, step: 1 }),
      first,
      ev('agent/inbox/spliced', { target: 'next-step', start: 0, removedCount: 1, inserted: [], outcome: 'canceled' }),
      ev('turn/start', { turn: 2 }),
      ev('turn/end', { turn: 2, reason: { kind: 'completed' } }),
    ]
    expect(foldConsumedWork(events)).toEqual({ end: first, droppedUnrun: true })
    const second = ev('turn/end', { turn: 3, reason: { kind: 'blocked' } })
    expect(foldConsumedWork([...events, ev('turn/start', { turn: 3 }), claimStep(), second])).toEqual({
      end: second,
      droppedUnrun: false,
    })
  })

  it('an empty log gives {droppedUnrun: false} without end', () => {
    expect(foldConsumedWork([])).toEqual({ droppedUnrun: false })
  })
})
