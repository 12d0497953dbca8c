import { interruptedTurnClosers, KNOWN_SESSION_EVENT_TYPES, Session, type SessionEvent } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { buildLog, sampleEvents, scriptedAppends, scriptedLog } from '../src/index.js'

describe('the suite fixtures are what the backends are tested with', () => {
  it('the scripted session covers every known event type and restores as a valid, balanced log', () => {
    const log = scriptedLog(2) as unknown as SessionEvent[]
    expect(new Set(log.map((e) => e.type))).toEqual(new Set(KNOWN_SESSION_EVENT_TYPES))
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i))
    expect(() => Session.fromRestore('s', log, { version: 0, id: 's', createdAt: 1 })).not.toThrow()
    expect(interruptedTurnClosers(log)).toEqual([])
  })

  it('replaying the script on a live session appends exactly the built log', () => {
    const session = Session.create('s', undefined, { version: 0, id: 's', createdAt: 1 })
    for (const a of scriptedAppends(1)) session.append(a.type as never, a.data as never, a.opts as never)
    const built = buildLog(scriptedAppends(1))
    expect(session.events.map(({ type, seq, data }) => ({ type, seq, data }))).toEqual(
      built.map(({ type, seq, data }) => ({ type, seq, data })),
    )
  })

  it('the sample log ends in an open turn whose closers are a step end and an interrupted turn end', () => {
    const events = sampleEvents() as unknown as SessionEvent[]
    expect(interruptedTurnClosers(events).map((e) => e.type)).toEqual(['step/end', 'turn/end'])
  })
})
