import {
  interruptedTurnClosers,
  SessionFormatUnsupportedError,
  SessionPersistenceCorruptionError,
  TOOL_OUTCOME_UNKNOWN,
  type SessionHeader,
} from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { captureWarnings, makeApp, rejection, type PersistenceDriver } from './driver.js'
import { header, sampleEvents, scriptedLog } from './fixtures.js'

const log = scriptedLog(2)
const firstTurnEnd = log.findIndex((e) => e.type === 'turn/end')

/** Reading stored sessions: the committed region, closers, validation, the not-found and foreign-format errors. */
export function describeReading<S>(driver: PersistenceDriver<S>): void {
  const where = (persistence: { locate(meta: SessionHeader): { path: string } }, id: string) =>
    persistence.locate(header(id) as SessionHeader).path

  describe('load, inspect and repair', () => {
    it('inspect closes an interrupted turn in memory only; load commits the closers; a second load changes nothing', async () => {
      const { store, persistence } = makeApp(driver)
      const events = sampleEvents()
      await driver.writeStored(store, header('s'), events)
      const closers = interruptedTurnClosers(events)
      const inspected = await persistence.inspect('s')
      expect(Object.isFrozen(inspected)).toBe(true)
      expect(inspected.meta).toEqual(header('s'))
      expect(inspected.events).toEqual([...events, ...closers])
      expect(closers.map((e) => e.type)).toEqual(['step/end', 'turn/end'])
      expect(closers.at(-1)!.data).toEqual({ turn: 2, reason: { kind: 'interrupted' } })
      expect(await driver.storedSeqs(store, 's')).toEqual([0, 1, 2, 3, 4, 5]) // inspect never writes
      const loaded = await persistence.load('s')
      expect(Object.isFrozen(loaded)).toBe(true)
      expect(loaded.events).toEqual([...events, ...closers])
      expect(await driver.storedSeqs(store, 's')).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
      const again = await persistence.load('s')
      expect(again.events).toEqual(loaded.events)
      expect(await driver.storedSeqs(store, 's')).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
      const reader = makeApp(driver, {}, store)
      expect((await reader.persistence.inspect('s')).events).toEqual(loaded.events)
    })

    it('closes a recorded tool call as TOOL_OUTCOME_UNKNOWN', async () => {
      const { store, persistence } = makeApp(driver)
      const callSeq = log.findIndex((e) => e.type === 'tool/call')
      await driver.writeStored(store, header('s1'), log.slice(0, callSeq + 1))
      const { events } = await persistence.inspect('s1')
      const closer = events[callSeq + 1]!
      expect(closer).toMatchObject({
        type: 'tool/result',
        seq: callSeq + 1,
        sourceEventSeqs: [callSeq],
        time: log[callSeq]!.time,
      })
      expect((closer.data as { error: { code: string } }).error.code).toBe(TOOL_OUTCOME_UNKNOWN)
    })

    it('a balanced log loads unchanged', async () => {
      const { store, persistence } = makeApp(driver)
      await driver.writeStored(store, header('ok'), log.slice(0, firstTurnEnd + 1))
      expect((await persistence.load('ok')).events).toEqual(log.slice(0, firstTurnEnd + 1))
      expect(await driver.storedSeqs(store, 'ok')).toEqual(log.slice(0, firstTurnEnd + 1).map((e) => e.seq))
    })

    it('absent ids: load, inspect, prepare and resume reject with not found; readRaw resolves undefined', async () => {
      const { persistence } = makeApp(driver)
      for (const op of [
        () => persistence.load('ghost'),
        () => persistence.inspect('ghost'),
        () => persistence.prepare('ghost'),
        () => persistence.resume('ghost'),
      ]) {
        expect((await rejection(op())).message).toBe('session "ghost" not found')
      }
      expect(await persistence.readRaw('ghost')).toBeUndefined()
    })

    it('a foreign log format version is refused unwrapped, naming where the raw log is', async () => {
      const { store, persistence } = makeApp(driver)
      await driver.writeForeignVersion(store, 'new', 2)
      await driver.writeForeignVersion(store, 'old', -1)
      const newer = await rejection(persistence.inspect('new'))
      expect(newer).toBeInstanceOf(SessionFormatUnsupportedError)
      expect(newer.message).toBe(
        `session "new" uses log format v2, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it (raw log: ${where(persistence, 'new')})`,
      )
      expect((newer as SessionFormatUnsupportedError).location).toEqual(
        persistence.locate(header('new') as SessionHeader),
      )
      const older = await rejection(persistence.load('old'))
      expect(older).toBeInstanceOf(SessionFormatUnsupportedError)
      expect(older.message).toBe(
        `session "old" uses log format v-1, older than the supported v0, and this build ships no upgrade path for it (raw log: ${where(persistence, 'old')})`,
      )
    })

    it('validation: legacy vocabulary, unknown types, ignorable, extraEventTypes and shape failures', async () => {
      const { store, persistence } = makeApp(driver)
      await driver.writeStored(store, header('legacy'), [{ type: 'mode/set', seq: 0, time: 1, data: {} }])
      const error = await rejection(persistence.load('legacy'))
      expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
      expect(error.message).toBe(
        'stored session "legacy" failed validation: Error: session "legacy" contains unsupported legacy mode/set event at seq 0',
      )
      expect((error as SessionPersistenceCorruptionError).path).toBe(where(persistence, 'legacy'))
      expect((error as SessionPersistenceCorruptionError).cause).toBeInstanceOf(Error)

      await driver.writeStored(store, header('delta'), [{ type: 'request/header-delta', seq: 0, time: 1, data: {} }])
      expect((await rejection(persistence.load('delta'))).message).toContain(
        'unsupported legacy request/header-delta event at seq 0',
      )
      const fallback = {
        type: 'request/header',
        seq: 0,
        time: 1,
        data: { header: { config: { provider: 'p', model: 'm' } }, reason: 'fallback' },
      }
      await driver.writeStored(store, header('fallback'), [fallback])
      expect((await rejection(persistence.inspect('fallback'))).message).toBe(
        'stored session "fallback" failed validation: Error: session "fallback" contains unsupported legacy request/header reason "fallback" at seq 0',
      )

      await driver.writeStored(store, header('unknown'), [{ type: 'future/thing', seq: 0, time: 1, data: {} }])
      const unknown = await rejection(persistence.inspect('unknown'))
      expect(unknown).toBeInstanceOf(SessionFormatUnsupportedError)
      expect(unknown.message).toBe(
        `session "unknown" contains event type "future/thing" (seq 0) unknown to this harness and not marked ignorable; refusing to interpret the log — it was likely written by a newer harness (raw log: ${where(persistence, 'unknown')})`,
      )
      await driver.writeStored(store, header('ignorable'), [
        { type: 'future/thing', seq: 0, time: 1, data: {}, ignorable: true },
      ])
      expect((await persistence.load('ignorable')).events).toHaveLength(1)
      const declared = makeApp(driver, { extraEventTypes: ['future/thing'] }, store)
      expect((await declared.persistence.load('unknown')).events).toHaveLength(1)

      await driver.writeStored(store, header('shape'), [
        { type: 'user/message', seq: 0, time: 1, data: { role: 'user' }, surfaceOp: 'append' },
      ])
      const shape = await rejection(persistence.load('shape'))
      expect(shape).toBeInstanceOf(SessionPersistenceCorruptionError)
      expect(shape.message).toMatch(/^stored session "shape" failed validation: Error: .*lacks an identified message/)
    })

    it('validation order: legacy vocabulary before an earlier unknown type; an unknown type before the restore check', async () => {
      const { store, persistence } = makeApp(driver)
      await driver.writeStored(store, header('o'), [
        { type: 'future/x', seq: 0, time: 1, data: {} },
        { type: 'mode/set', seq: 1, time: 1, data: {} },
      ])
      const first = await rejection(persistence.inspect('o'))
      expect(first).toBeInstanceOf(SessionPersistenceCorruptionError)
      expect(first.message).toBe(
        'stored session "o" failed validation: Error: session "o" contains unsupported legacy mode/set event at seq 1',
      )
      await driver.writeStored(store, header('u'), [
        { type: 'user/message', seq: 0, time: 1, data: { role: 'user' }, surfaceOp: 'append' },
        { type: 'future/x', seq: 1, time: 1, data: {} },
      ])
      const second = await rejection(persistence.load('u'))
      expect(second).toBeInstanceOf(SessionFormatUnsupportedError)
      expect(second.message).toContain('contains event type "future/x" (seq 1) unknown to this harness')
    })
  })

  describe('list and listSnapshots', () => {
    it('list sorts by createdAt then id; a foreign header is skipped with a warning', async () => {
      const warnings = captureWarnings(driver.name)
      const { store, persistence } = makeApp(driver)
      expect(await persistence.list()).toEqual([])
      await driver.writeStored(store, header('b', 5), [])
      await driver.writeStored(store, header('a', 5), [])
      await driver.writeStored(store, header('z', 1), [])
      await driver.writeForeignVersion(store, 'f', 9)
      expect((await persistence.list()).map((m) => m.id)).toEqual(['z', 'a', 'b'])
      expect((await persistence.listSnapshots()).map((s) => s.meta.id)).toEqual(['z', 'a', 'b'])
      const skipped = `${driver.name}: skipping "${where(persistence, 'f')}": SessionFormatUnsupportedError: session "f" uses log format v9, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it (raw log: ${where(persistence, 'f')})`
      expect(warnings).toEqual([skipped, skipped]) // once per listing
    })

    it('a revision stays while nothing is written and changes on every append and repair', async () => {
      const { ctx, store, persistence } = makeApp(driver)
      await driver.writeStored(store, header('old'), sampleEvents())
      const [first] = await persistence.listSnapshots()
      const [again] = await persistence.listSnapshots()
      expect(again!.revision).toBe(first!.revision)
      await persistence.load('old')
      const [repaired] = await persistence.listSnapshots()
      expect(repaired!.revision).not.toBe(first!.revision)
      const s = ctx.sessions.create('new')
      s.append('turn/start', { turn: 1 })
      await ctx.sessions.flush(s)
      const revisionOf = async () => (await persistence.listSnapshots()).find((x) => x.meta.id === 'new')!.revision
      const before = await revisionOf()
      s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
      await ctx.sessions.flush(s)
      expect(await revisionOf()).not.toBe(before)
    })

    it('readRaw names the stored header', async () => {
      const { store, persistence } = makeApp(driver)
      await driver.writeStored(store, { ...header('r'), cwd: '/w' }, sampleEvents().slice(0, 3))
      const raw = await persistence.readRaw('r')
      expect(raw?.header).toEqual({ ...header('r'), cwd: '/w' })
      expect(typeof raw?.fileName).toBe('string')
      expect(raw?.content).toContain('"turn/start"')
    })
  })
}
