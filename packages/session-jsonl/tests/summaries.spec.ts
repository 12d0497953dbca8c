/**
 * `summaries()` reads each log from its two ends only, and must say exactly what a fold over every stored event says
 * (`summarizeEvents`): for any number of turns, any read size (so lines straddle chunk edges) and a torn tail or not.
 */
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { summarizeEvents } from '@bridle/session'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { nodeFs } from '../src/fs-layer.js'
import { encodeSegment } from '../src/segment.js'
import { readSummaries } from '../src/summary-read.js'
import { scriptedAppends } from './fixtures/script.js'
import { makeApp, replay } from './helpers.js'

/** The script of `turns` turns, each answered by a model of its own (`m-<turn>`), so "latest model" is observable. */
function appendsWithModels(turns: number) {
  return scriptedAppends(turns).map((a) => {
    const turn = (a.data as { turn?: number }).turn
    const text = JSON.stringify(a.data).replaceAll('"model":"scripted-1"', `"model":"m-${turn ?? 0}"`)
    return { ...a, data: JSON.parse(text) }
  })
}

/** The complete event lines of a stored log, parsed (the header and a torn tail left out). */
function storedEvents(content: string): { type: string; time: number; data?: unknown }[] {
  const lines = content.split('\n')
  lines.pop() // the text after the last newline: empty, or a torn tail
  return lines.slice(1).map((line) => JSON.parse(line))
}

describe('summaries()', () => {
  it('equals the fold over every stored event, for any read size and with or without a torn tail', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(3, 17, 256, 4096, 65536),
        // a torn tail: bytes of a line cut short, or a whole well-formed event line whose newline never made it
        fc.option(
          fc.oneof(
            fc.string({ minLength: 1, maxLength: 40 }).map((s) => s.replaceAll('\n', ' ')),
            fc.constant('whole'),
          ),
        ),
        async (turnCounts, chunkBytes, torn) => {
          const app = makeApp()
          for (const [i, turns] of turnCounts.entries()) {
            const session = app.ctx.sessions.create(`s${i}`)
            replay(session, appendsWithModels(turns))
            if (session.events.length === 0)
              session.append('user/message', scriptedAppends(1)[3]!.data, { surfaceOp: 'append' })
            await app.ctx.sessions.flush(session)
          }
          if (torn !== null) {
            const path = join(app.root, `${encodeSegment('s0')}.jsonl`)
            const next = app.ctx.sessions.get('s0')!.seq
            const line = JSON.stringify({ type: 'turn/start', seq: next, time: 9e12, data: { turn: 99 } })
            appendFileSync(path, torn === 'whole' ? line : torn)
          }
          const snapshots = await app.persistence.listSnapshots()
          const pathOf = (id: string) => join(app.root, `${encodeSegment(id)}.jsonl`)
          const summaries = await readSummaries(nodeFs, app.root, pathOf, snapshots, undefined, chunkBytes)
          const expected = await Promise.all(
            snapshots.map(async ({ meta, revision }) => {
              const raw = await app.persistence.readRaw(meta.id)
              return summarizeEvents(meta, revision, storedEvents(raw!.content))
            }),
          )
          expect(summaries).toEqual(expected)
        },
      ),
      { numRuns: 40 },
    )
  })

  it('lists turns, last activity, model and first prompt through the service', async () => {
    const app = makeApp()
    const session = app.ctx.sessions.create('listed')
    replay(session, scriptedAppends(3))
    await app.ctx.sessions.flush(session)
    const [summary] = await app.persistence.summaries()
    expect(summary).toMatchObject({
      meta: { id: 'listed' },
      events: session.events.length,
      turns: 3,
      lastActivity: session.events.at(-1)!.time,
      model: { provider: 'scripted', model: 'scripted-1' },
      firstPrompt: 'prompt 1.1 — "quoted" ünïcödé 🚀',
    })
  })
})
