import type { Session, SessionPersistence } from '@bridle/session'
import type { Context } from 'cordis'
import { describe, expect, it, vi } from 'vitest'
import { makeApp, rejection, type PersistenceDriver } from './driver.js'
import { header, sampleEvents, scriptedLog } from './fixtures.js'

const log = scriptedLog(2)
const firstTurnEnd = log.findIndex((e) => e.type === 'turn/end')
const never = 1_000_000

/** Live loads, prepare and resume: the preparation rules, the end-seed marker and continuity after a resume. */
export function describeResuming<S>(driver: PersistenceDriver<S>): void {
  describe('load of a live session', () => {
    it('flushes and snapshots; an open turn is refused; inspect returns the live events', async () => {
      const { ctx, store, persistence } = makeApp(driver, { writeBatchMaxDelayMs: never })
      const s = ctx.sessions.create('s1')
      s.append('turn/start', { turn: 1 })
      expect((await rejection(persistence.load('s1'))).message).toBe(
        'cannot load session "s1" while its live turn is open; use the live Session or wait for the turn to close',
      )
      s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
      const loaded = await persistence.load('s1')
      expect(loaded.events).toEqual(s.events)
      expect(await driver.storedSeqs(store, 's1')).toEqual([0, 1])
      const inspected = await persistence.inspect('s1')
      expect(inspected.events).toBe(s.events)
      expect(Object.isFrozen(inspected)).toBe(true)
    })
  })

  describe('prepare and resume', () => {
    it('refuses live ids and a second outstanding preparation; disposing releases; preparing writes nothing', async () => {
      const { ctx, store, persistence } = makeApp(driver)
      const stored = log.slice(0, firstTurnEnd + 1)
      await driver.writeStored(store, header('s1'), stored)
      ctx.sessions.create('live')
      expect((await rejection(persistence.prepare('live'))).message).toBe(
        'cannot prepare session "live" while it is live',
      )
      const first = persistence.prepare('s1')
      expect((await rejection(persistence.prepare('s1'))).message).toBe(
        'cannot prepare session "s1" while another preparation is outstanding',
      )
      const prepared = await first
      expect(prepared.session.events.at(-1)?.type).toBe('session/end-seed')
      expect(prepared.session.events).toHaveLength(stored.length + 1)
      expect(prepared.session.firstLiveSeq).toBe(stored.length)
      expect(ctx.sessions.get('s1')).toBeUndefined()
      expect((await rejection(persistence.prepare('s1'))).message).toContain('another preparation is outstanding')
      prepared[Symbol.dispose]()
      prepared[Symbol.dispose]()
      const again = await persistence.prepare('s1')
      again[Symbol.dispose]()
      expect(await driver.storedSeqs(store, 's1')).toEqual(stored.map((e) => e.seq))
    })

    it('resume writes the end-seed marker after the repaired log; resuming again adds no second marker (P11)', async () => {
      const app = makeApp(driver)
      const { ctx, store, persistence } = app
      const events = sampleEvents()
      await driver.writeStored(store, header('s1'), events)
      const loaded = await persistence.load('s1')
      const session = await persistence.resume('s1')
      expect(ctx.sessions.get('s1')).toBe(session)
      await ctx.sessions.flush(session)
      expect(await driver.storedSeqs(store, 's1')).toEqual([...loaded.events.map((e) => e.seq), loaded.events.length])
      expect(session.events.at(-1)).toMatchObject({ type: 'session/end-seed', seq: loaded.events.length })
      const count = session.events.length
      const markers = session.events.filter((e) => e.type === 'session/end-seed').length
      await app.stop()
      const other = makeApp(driver, {}, store)
      const second = await other.persistence.resume('s1')
      await other.ctx.sessions.flush(second)
      expect(second.events).toHaveLength(count)
      expect(second.events.filter((e) => e.type === 'session/end-seed')).toHaveLength(markers)
    })

    it('a failed announce disposes the preparation and writes nothing beyond the repair', async () => {
      const { ctx, store, persistence } = makeApp(driver)
      await driver.writeStored(store, header('s1'), log.slice(0, firstTurnEnd + 3))
      ctx.on('session/created', () => {
        throw new Error('veto')
      })
      expect((await rejection(persistence.resume('s1'))).message).toBe('veto')
      expect(ctx.sessions.get('s1')).toBeUndefined()
      await new Promise((r) => setTimeout(r, 20))
      const repaired = (await persistence.inspect('s1')).events
      expect(repaired.at(-1)?.type).toBe('turn/end')
      expect(await driver.storedSeqs(store, 's1')).toEqual(repaired.map((e) => e.seq))
      ;(await persistence.prepare('s1'))[Symbol.dispose]()
    })

    it('resume continues with contiguous seqs after one marker; the session is an effect of the caller', async () => {
      const { ctx, store, persistence } = makeApp(driver)
      await driver.writeStored(store, header('s1'), log.slice(0, firstTurnEnd + 1))
      let resumed: Session | undefined
      const fork = ctx.plugin({
        inject: ['sessionPersistence'],
        apply: async (c: Context) => {
          resumed = await (c.sessionPersistence as SessionPersistence).resume('s1')
        },
      })
      await vi.waitFor(() => expect(resumed).toBeDefined())
      resumed!.append('turn/start', { turn: 3 })
      resumed!.append('turn/end', { turn: 3, reason: { kind: 'completed' } })
      fork.dispose() // detaches the session; retirement flushes it
      expect(ctx.sessions.get('s1')).toBeUndefined()
      const loaded = await persistence.load('s1')
      expect(loaded.events.map((e) => e.seq)).toEqual(loaded.events.map((_, i) => i))
      expect(loaded.events.slice(firstTurnEnd + 1).map((e) => e.type)).toEqual([
        'session/end-seed',
        'turn/start',
        'turn/end',
      ])
      expect(loaded.events.slice(0, firstTurnEnd + 1)).toEqual(log.slice(0, firstTurnEnd + 1)) // never rewritten (P5)
      expect(await driver.storedSeqs(store, 's1')).toEqual(loaded.events.map((e) => e.seq))
    })

    it('a session/created listener that unloads the resuming plugin detaches the session; the id can be resumed again', async () => {
      const { ctx, store, persistence } = makeApp(driver)
      await driver.writeStored(store, header('s1'), log.slice(0, firstTurnEnd + 1))
      const events: string[] = []
      let owner: { dispose(): unknown } | undefined
      ctx.on('session/created', (s) => {
        events.push(`created ${s.id}`)
        owner?.dispose()
      })
      ctx.on('session/disposed', (s) => void events.push(`disposed ${s.id}`))
      let resumed: Promise<Session> | undefined
      ctx.plugin({
        inject: ['sessionPersistence'],
        apply: (c: Context) => {
          owner = c.scope
          resumed = (c.sessionPersistence as SessionPersistence).resume('s1')
        },
      })
      const session = await resumed!
      expect(events).toEqual(['created s1', 'disposed s1'])
      expect(ctx.sessions.get('s1')).toBeUndefined()
      owner = undefined
      const again = await persistence.resume('s1')
      expect(again).not.toBe(session)
      expect(ctx.sessions.get('s1')).toBe(again)
    })
  })
}
