import { Session, SessionStore } from '@bridle/session'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { captureWarnings, loadBackend, makeApp, rejection, type PersistenceDriver } from './driver.js'
import { replay, scriptedAppends, userMessage } from './fixtures.js'

const never = 1_000_000

/** Writing live sessions: laziness, batches, seeds, warnings, retirement and teardown. */
export function describeWriting<S>(driver: PersistenceDriver<S>): void {
  describe('writing live sessions', () => {
    it('is lazy: nothing is stored for a session without events, and flushing it writes nothing', async () => {
      const { ctx, persistence, store } = makeApp(driver)
      const s = ctx.sessions.create('s1')
      expect(await ctx.sessions.flush(s)).toBe(true)
      expect(await persistence.list()).toEqual([])
      expect(await driver.storedSeqs(store, 's1')).toEqual([])
    })

    it('stores the header and the events on flush, then appends later batches; a reload is deep-equal', async () => {
      const { ctx, store } = makeApp(driver)
      const s = ctx.sessions.create('s1', { meta: { cwd: '/work' } })
      replay(s, scriptedAppends(1).slice(0, 5))
      await ctx.sessions.flush(s)
      expect(await driver.storedSeqs(store, 's1')).toEqual([0, 1, 2, 3, 4])
      replay(s, scriptedAppends(1).slice(5))
      await ctx.sessions.flush(s)
      expect(await driver.storedSeqs(store, 's1')).toEqual(s.events.map((e) => e.seq))
      const reader = makeApp(driver, {}, store)
      const stored = await reader.persistence.inspect('s1')
      expect(stored.events).toEqual(s.events)
      expect(stored.meta).toEqual({ version: 0, id: 's1', createdAt: s.header.createdAt, cwd: '/work' })
      expect(stored.events.map((e) => JSON.stringify(e))).toEqual(s.events.map((e) => JSON.stringify(e)))
    })

    it('writes a forked seed at once as the first batch, with parentSession and seedLength', async () => {
      const { ctx, persistence } = makeApp(driver)
      const parent = ctx.sessions.create('p')
      replay(parent, scriptedAppends(1))
      const child = ctx.sessions.branch(parent, undefined, 'c')
      await ctx.sessions.flush(child)
      const stored = await persistence.inspect('c')
      expect(stored.events).toEqual(child.events)
      const [header] = (await persistence.list()).filter((h) => h.id === 'c')
      expect(header).toMatchObject({ parentSession: 'p', seedLength: parent.events.length })
    })

    it('unknown in-memory header keys are not stored', async () => {
      const { ctx, store } = makeApp(driver)
      const seed = [
        { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } },
        { type: 'turn/end', seq: 1, time: 1, data: { turn: 1, reason: { kind: 'completed' } } },
      ]
      const s = Session.create(
        'h',
        seed as never,
        { version: 0, id: 'h', createdAt: 9, label: 'kept in memory only' } as never,
      )
      ctx.sessions.enter(s)
      ctx.sessions.announce(s)
      await ctx.sessions.flush(s)
      const reader = makeApp(driver, {}, store)
      expect((await reader.persistence.inspect('h')).meta).toEqual({ version: 0, id: 'h', createdAt: 9 })
    })

    it('warns once per undeclared event type and still writes it; extraEventTypes silences it', async () => {
      const warnings = captureWarnings(driver.name)
      const { ctx, store } = makeApp(driver)
      const s = ctx.sessions.create('s1')
      s.append('plugin/thing' as never, { a: 1 } as never)
      s.append('plugin/thing' as never, { a: 2 } as never)
      await ctx.sessions.flush(s)
      expect(warnings).toEqual([
        `${driver.name}: session "s1" persisted event type "plugin/thing" that is not in KNOWN_SESSION_EVENT_TYPES or extraEventTypes; the log will refuse to load until it is declared`,
      ])
      expect(await driver.storedSeqs(store, 's1')).toEqual([0, 1])
      const other = makeApp(driver, { extraEventTypes: ['plugin/thing'] })
      const t = other.ctx.sessions.create('t')
      t.append('plugin/thing' as never, {} as never)
      await other.ctx.sessions.flush(t)
      expect(warnings).toHaveLength(1)
    })

    it('without a backend flush resolves false; with it, true', async () => {
      const bare = new Context()
      bare.plugin(SessionStore)
      const s = bare.sessions.create('m')
      s.append('turn/start', { turn: 1 })
      await expect(bare.sessions.flush(s)).resolves.toBe(false)
      const { ctx } = makeApp(driver)
      const t = ctx.sessions.create('m')
      t.append('turn/start', { turn: 1 })
      await expect(ctx.sessions.flush(t)).resolves.toBe(true)
    })

    it('retires a disposed session after flushing it; a load started meanwhile waits and sees every event', async () => {
      const { ctx, persistence } = makeApp(driver, { writeBatchMaxDelayMs: never })
      const fork = ctx.plugin({
        inject: ['sessions'],
        apply: (c: Context) => {
          const s = c.sessions.create('r')
          s.append('turn/start', { turn: 1 })
          s.append('user/message', userMessage('u1', 'hi') as never, { surfaceOp: 'append' })
          s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
        },
      })
      fork.dispose()
      expect(ctx.sessions.get('r')).toBeUndefined()
      expect((await persistence.inspect('r')).events).toHaveLength(3)
      const loaded = await persistence.load('r')
      expect(loaded.events.map((e) => e.type)).toEqual(['turn/start', 'user/message', 'turn/end'])
      expect((await persistence.readRaw('r'))?.header).toMatchObject({ id: 'r' })
    })

    it('disposing the plugin flushes every live session; events after admission stopped are not stored', async () => {
      const ctx = new Context()
      ctx.plugin(SessionStore)
      const store = driver.newStore()
      const backend = loadBackend(driver, ctx, store, { writeBatchMaxDelayMs: never })
      const s = ctx.sessions.create('s1')
      s.append('turn/start', { turn: 1 })
      const stopped = backend.stop()
      s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
      await stopped
      expect(await driver.storedSeqs(store, 's1')).toEqual([0])
    })

    it('a failed batch keeps its events; the next flush retries without duplicates', async () => {
      const { ctx, store } = makeApp(driver, { writeBatchMaxDelayMs: never })
      const s = ctx.sessions.create('s1')
      const appends = scriptedAppends(1)
      replay(s, appends.slice(0, 3))
      await ctx.sessions.flush(s)
      replay(s, appends.slice(3, 8))
      const failure = await driver.failNextWrite(store, 's1')
      expect((await rejection(ctx.sessions.flush(s))).message).toMatch(failure)
      expect(await driver.storedSeqs(store, 's1')).toEqual([0, 1, 2])
      await ctx.sessions.flush(s)
      expect(await driver.storedSeqs(store, 's1')).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    })

    it('a failed background batch warns once, keeps its events, and the next event resumes writing', async () => {
      const warnings = captureWarnings(driver.name)
      const { ctx, store } = makeApp(driver, { writeBatchMaxDelayMs: 1 })
      const s = ctx.sessions.create('s1')
      const appends = scriptedAppends(1)
      replay(s, appends.slice(0, 2))
      await ctx.sessions.flush(s)
      const failure = await driver.failNextWrite(store, 's1')
      replay(s, appends.slice(2, 4))
      await expect.poll(() => warnings.length, { timeout: 30_000 }).toBe(1)
      expect(warnings[0]).toMatch(
        new RegExp(`^${driver.name}: background write for session "s1" failed \\(buffered events retained\\): `),
      )
      expect(warnings[0]).toMatch(failure)
      expect(await driver.storedSeqs(store, 's1')).toEqual([0, 1])
      replay(s, appends.slice(4, 5))
      await expect.poll(() => driver.storedSeqs(store, 's1'), { timeout: 30_000 }).toEqual([0, 1, 2, 3, 4])
    })
  })
}
