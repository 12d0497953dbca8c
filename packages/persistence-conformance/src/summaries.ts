import { summarizeEvents, type SessionHeader } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { makeApp, type PersistenceDriver } from './driver.js'
import { header, replay, sampleEvents, scriptedAppends } from './fixtures.js'

/** The scripted turns, each answered by a model of its own (`m-<turn>`), so "the latest model" is observable. */
function appendsWithModels(turns: number) {
  return scriptedAppends(turns).map((a) => {
    const turn = (a.data as { turn?: number }).turn ?? 0
    return { ...a, data: JSON.parse(JSON.stringify(a.data).replaceAll('"model":"scripted-1"', `"model":"m-${turn}"`)) }
  })
}

/**
 * `summaries()`: what a listing shows of each stored session, read without loading whole logs, must equal the fold
 * over the session's stored events (`summarizeEvents`), however the events were written.
 */
export function describeSummaries<S>(driver: PersistenceDriver<S>): void {
  describe('summaries', () => {
    it('equal the fold over the stored events of sessions written in several batches, in list order', async () => {
      const { ctx, store } = makeApp(driver)
      for (const [id, turns] of [
        ['b', 3],
        ['a', 1],
        ['c', 2],
      ] as const) {
        const session = ctx.sessions.create(id)
        const appends = appendsWithModels(turns)
        for (const [i, a] of appends.entries()) {
          replay(session, [a])
          if (i % 7 === 0) await ctx.sessions.flush(session)
        }
        await ctx.sessions.flush(session)
      }
      const reader = makeApp(driver, {}, store)
      const summaries = await reader.persistence.summaries!()
      const expected = await Promise.all(
        (await reader.persistence.listSnapshots()).map(async ({ meta, revision }) =>
          summarizeEvents(meta, revision, (await reader.persistence.inspect(meta.id)).events),
        ),
      )
      expect(summaries).toEqual(expected)
      expect(summaries.map((s) => [s.meta.id, s.turns, s.model?.model])).toEqual([
        ['b', 3, 'm-3'],
        ['a', 1, 'm-1'],
        ['c', 2, 'm-2'],
      ])
      expect(summaries[0]!.firstPrompt).toBe('prompt 1.1 — "quoted" ünïcödé 🚀')
    })

    it('cover sessions stored behind the backend, and follow a repair that closed an interrupted turn', async () => {
      const { store, persistence } = makeApp(driver)
      await driver.writeStored(store, header('stored'), sampleEvents())
      const before = (await persistence.summaries!())[0]!
      expect(before).toMatchObject({ events: 6, turns: 2, lastActivity: 105, firstPrompt: 'hi' })
      expect(before.model).toBeUndefined()
      const loaded = await persistence.load('stored')
      const [after] = await persistence.summaries!()
      const [snapshot] = await persistence.listSnapshots()
      expect(after).toEqual(summarizeEvents(loaded.meta as SessionHeader, snapshot!.revision, loaded.events))
      expect(after!.events).toBe(8)
    })
  })
}
