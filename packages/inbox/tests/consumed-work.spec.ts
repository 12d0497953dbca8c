import { describe, expect, it } from 'vitest'
import { foldConsumedWork } from '@bridle/inbox'
import type { SessionEvent } from '@bridle/session'

let seq = 0
const ev = (type: string, data: unknown): SessionEvent => ({ type, seq: seq++, time: 0, data }) as SessionEvent
const claim = (removedCount = 1) =>
  ev('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount, inserted: [] })
const cancel = (inserted: unknown[] = []) =>
  ev('agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted, outcome: 'canceled' })

describe('foldConsumedWork', () => {
  it('a turn that stepped accounts for work and resets droppedUnrun', () => {
    const end = ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const r = foldConsumedWork([
      cancel(),
      ev('turn/start', { turn: 1 }),
      claim(),
      ev('step/start', { turn: 1, step: 1 }),
      end,
    ])
    expect(r).toEqual({ end, droppedUnrun: false })
  })

  it('a claim without a step counts unless the turn completed', () => {
    const blocked = ev('turn/end', { turn: 1, reason: { kind: 'blocked' } })
    expect(foldConsumedWork([ev('turn/start', { turn: 1 }), claim(), blocked]).end).toBe(blocked)
    const completed = ev('turn/end', { turn: 2, reason: { kind: 'completed' } })
    expect(foldConsumedWork([ev('turn/start', { turn: 2 }), claim(), completed]).end).toBeUndefined()
  })

  it('claims outside a turn count for nothing; canceled empty splices set droppedUnrun, replacements do not', () => {
    const r = foldConsumedWork([
      claim(),
      ev('turn/start', { turn: 1 }),
      ev('turn/end', { turn: 1, reason: { kind: 'error' } }),
    ])
    expect(r.end).toBeUndefined()
    expect(foldConsumedWork([cancel([{ id: 'x' }])]).droppedUnrun).toBe(false)
    const end = ev('turn/end', { turn: 1, reason: { kind: 'completed' } })
    const after = foldConsumedWork([ev('turn/start', { turn: 1 }), ev('step/start', {}), end, cancel()])
    expect(after).toEqual({ end, droppedUnrun: true })
  })
})
