import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ViewSource } from '../src/source.js'
import type { RequestView } from '../src/types.js'
import { ask, makeApp, openSource, type OpenedSource } from './app.js'

// The server keeps one replay open between request views; whatever order a reader opens requests in, each view must
// be the one a replay from the start gives.
describe('served request views, in any order', () => {
  let opened: OpenedSource
  let id: string
  let seqs: number[]
  const fresh = new Map<number, RequestView | undefined>()

  beforeAll(async () => {
    // three turns with compactions between them: summary requests are compared, never compared with
    const app = makeApp()
    const compaction = { contextWindow: 1200, threshold: 0.5, lowWater: 0.45, summaryMaxTokens: 20 }
    id = await ask(app, 'What is in package.json?', { compaction })
    for (const prompt of ['What is in README.md?', 'And in package.json again?'])
      await ask(app, prompt, { session: id, compaction })
    opened = await openSource(app)
    const view = await opened.source.session(id)
    const rows = view.turns.flatMap((t) => t.steps.flatMap((s) => s.requests))
    expect(rows.some((row) => row.purpose === 'summary request')).toBe(true)
    seqs = rows.map((row) => row.seq)
    // each from a source of its own, so from a replay started for it alone
    for (const seq of seqs) fresh.set(seq, await new ViewSource(opened.persistence).request(id, seq))
  }, 120_000)
  afterAll(() => opened?.close())

  it('equal the views a replay from the start gives, and the ones an --html file carries', async () => {
    expect(seqs.length).toBeGreaterThanOrEqual(5)
    expect([...fresh.values()].every((view) => view?.row !== undefined)).toBe(true)
    const carried = await new ViewSource(opened.persistence).wholeSession(id)
    expect(Object.keys(carried.requests).map(Number)).toEqual(seqs)
    for (const seq of seqs) expect(carried.requests[seq]).toEqual(fresh.get(seq))
    expect(carried.session).toEqual(await new ViewSource(opened.persistence).session(id))
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(seqs, { minLength: 1 }), async (order) => {
        const source = new ViewSource(opened.persistence)
        for (const seq of order) expect(await source.request(id, seq)).toEqual(fresh.get(seq))
        // a seq no request has is none
        expect(await source.request(id, -1)).toBeUndefined()
      }),
      { numRuns: 40 },
    )
  })
})
