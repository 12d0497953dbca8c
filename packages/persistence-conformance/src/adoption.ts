import { SessionStore } from '@bridle/session'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { loadBackend, type PersistenceDriver } from './driver.js'
import { header, replay, scriptedAppends } from './fixtures.js'

const appends = scriptedAppends(2)
const never = 1_000_000

/** Binding sessions that are already live when the backend (re)starts, e.g. after a config change or a hot reload. */
export function describeAdoption<S>(driver: PersistenceDriver<S>): void {
  /** An app whose session store outlives reloads of the backend plugin. */
  function reloadable() {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    const store = driver.newStore()
    const load = () => loadBackend(driver, ctx, store, { writeBatchMaxDelayMs: never })
    return { ctx, store, load }
  }

  describe('binding sessions that are already live (plugin reload)', () => {
    it('adopts a matching stored log and writes the live suffix', async () => {
      const { ctx, store, load } = reloadable()
      const first = load()
      const s = ctx.sessions.create('s1', { meta: { cwd: '/w' } })
      replay(s, appends.slice(0, 10))
      await ctx.sessions.flush(s)
      await first.stop()
      replay(s, appends.slice(10, 20)) // not stored: no backend
      const second = load()
      await ctx.sessions.flush(s)
      expect(await driver.storedSeqs(store, 's1')).toEqual(s.events.map((e) => e.seq))
      expect((await second.persistence.inspect('s1')).events).toEqual(s.events)
    })

    it('does not close an open turn while adopting: the live session is the authority', async () => {
      const { ctx, store, load } = reloadable()
      const first = load()
      const s = ctx.sessions.create('s1')
      replay(s, appends.slice(0, 4)) // turn 1 open
      await ctx.sessions.flush(s)
      await first.stop()
      load()
      s.append('step/end', { turn: 1, step: 1 })
      await ctx.sessions.flush(s)
      expect(await driver.storedSeqs(store, 's1')).toEqual(s.events.map((e) => e.seq))
      expect(s.events.map((e) => e.type)).not.toContain('turn/end')
    })

    it('a stored log that the live events do not reproduce is an id collision (sticky)', async () => {
      const { ctx, store, load } = reloadable()
      const s = ctx.sessions.create('s1')
      replay(s, appends.slice(0, 3))
      await driver.writeStored(store, header('s1', s.header.createdAt), [
        { type: 'turn/start', seq: 0, time: 1, data: { turn: 7 } },
      ])
      load()
      const message = driver.collisionMessage('s1')
      await expect(ctx.sessions.flush(s)).rejects.toThrow(message)
      s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
      await expect(ctx.sessions.flush(s)).rejects.toThrow(message)
      expect(await driver.storedSeqs(store, 's1')).toEqual([0])
    })

    it('a different stored cwd is an id collision', async () => {
      const { ctx, store, load } = reloadable()
      const s = ctx.sessions.create('s1', { meta: { cwd: '/live' } })
      replay(s, appends.slice(0, 2))
      await driver.writeStored(store, { ...header('s1', 1), cwd: '/stored' }, [])
      load()
      await expect(ctx.sessions.flush(s)).rejects.toThrow(
        'session "s1" is already persisted at a different cwd (persisted: /stored, live: /live) (id collision)',
      )
    })

    it('an empty live session whose id is already stored fails its writes instead of overwriting', async () => {
      const { ctx, store, load } = reloadable()
      const s = ctx.sessions.create('s1')
      await driver.writeStored(store, header('s1', 1), [])
      load()
      s.append('turn/start', { turn: 1 })
      await expect(ctx.sessions.flush(s)).rejects.toThrow(driver.existingMessage('s1'))
      expect(await driver.storedSeqs(store, 's1')).toEqual([])
    })

    it('a live session with nothing stored is bound as new and written', async () => {
      const { ctx, store, load } = reloadable()
      const s = ctx.sessions.create('s1')
      replay(s, appends.slice(0, 2))
      load()
      await ctx.sessions.flush(s)
      expect(await driver.storedSeqs(store, 's1')).toEqual([0, 1])
    })

    it('a restart while the old instance still flushes never writes a seq twice', async () => {
      const { ctx, store, load } = reloadable()
      const first = load()
      const s = ctx.sessions.create('s1')
      replay(s, appends.slice(0, 3))
      await ctx.sessions.flush(s)
      replay(s, appends.slice(3, 12)) // pending in the old instance
      const stopping = first.stop()
      load()
      replay(s, appends.slice(12, 15)) // admitted by the new instance
      await ctx.sessions.flush(s)
      await stopping
      expect(await driver.storedSeqs(store, 's1')).toEqual(s.events.map((e) => e.seq))
    })
  })
}
