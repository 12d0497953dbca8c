/**
 * The byte-flip probe: a sealed log written by the real writer (three complete turns and an open fourth) gets one
 * to three random bytes XORed with a random mask. A read of the damaged copy must end in exactly one of:
 *
 * - a `SessionPersistenceCorruptionError` naming the file and the line of the first damaged byte — always when a
 *   single flip lies before the last `turn/end` line (the committed region);
 * - a reported discard: the damage lies at or after the last `turn/end` line, every event kept is the original
 *   event, and the recovery report (and the warning of a load) names the first damaged line.
 *
 * Never does a read return an altered event. The property runs under fast-check with a fixed seed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SessionPersistenceCorruptionError, type SessionEvent, type SessionInspection } from '@bridle/session'
import fc from 'fast-check'
import { expect } from 'vitest'
import { makeApp, replay, scriptedAppends } from '../helpers.js'
import { balanced, completeLines } from './run-child.js'

export interface FlipFigures {
  readonly runs: number
  /** Reads refused with a corruption error naming the file and line. */
  readonly corruptionErrors: number
  /** Reads that discarded damaged lines at or after the last turn/end, and reported it. */
  readonly reportedDiscards: number
}

/** Writes the sealed log the probe damages; returns its bytes. */
async function writeOriginal(): Promise<Buffer> {
  const { ctx, persistence } = makeApp({ writeBatchMaxDelayMs: 1_000_000 })
  const s = ctx.sessions.create('flip', { meta: { cwd: '/work' } })
  const script = scriptedAppends(4)
  const fourthTurn = script.findLastIndex((a) => a.type === 'turn/start')
  replay(s, script.slice(0, fourthTurn + 12))
  await ctx.sessions.flush(s)
  return readFileSync(persistence.locate(s.header).path)
}

/** Runs the property `numRuns` times from `seed`. `warnings` is the caller's capture of session-jsonl warnings. */
export async function flipProbe(options: { seed: number; numRuns: number; warnings: string[] }): Promise<FlipFigures> {
  const { seed, numRuns, warnings } = options
  const original = await writeOriginal()
  const { events, ends, headerEnd } = completeLines(original)
  const lineStarts = [0, headerEnd, ...ends.slice(0, -1)]
  /** The 1-based line of a byte offset (a newline belongs to the line it ends). */
  const lineOf = (offset: number) => lineStarts.findLastIndex((start) => start <= offset) + 1
  const lastTurnEnd = events.findLastIndex((e) => e.type === 'turn/end')
  const committedEnd = lineStarts[lastTurnEnd + 1]! // start of the last turn/end line
  expect(lastTurnEnd).toBeLessThan(events.length - 1) // the last turn is open

  const { persistence, root } = makeApp()
  mkdirSync(root, { recursive: true })
  const path = join(root, 'flip.jsonl')
  const figures = { runs: 0, corruptionErrors: 0, reportedDiscards: 0 }
  const flip = fc.record({ at: fc.nat({ max: original.length - 1 }), mask: fc.integer({ min: 1, max: 255 }) })
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(flip, { minLength: 1, maxLength: 3, selector: (f) => f.at }),
      fc.boolean(),
      async (flips, viaLoad) => {
        figures.runs++
        const damaged = Buffer.from(original)
        for (const { at, mask } of flips) damaged[at]! ^= mask
        writeFileSync(path, damaged)
        const first = Math.min(...flips.map((f) => f.at))
        const line = lineOf(first)
        const warned = warnings.length
        let view: SessionInspection
        try {
          view = viaLoad ? await persistence.load('flip') : await persistence.inspect('flip')
        } catch (error) {
          expect(error).toBeInstanceOf(SessionPersistenceCorruptionError)
          expect((error as SessionPersistenceCorruptionError).path).toBe(path)
          expect((error as SessionPersistenceCorruptionError).line).toBe(line)
          expect((error as Error).message).toMatch(line === 1 ? /header line/ : new RegExp(`at line ${line}\\b`))
          figures.corruptionErrors++
          return
        }
        // Loaded: only a reported discard of damage at or after the last turn/end line (for a single flip) is allowed,
        // and every event kept is the original one.
        expect(
          flips.length > 1 || first >= committedEnd,
          `a single flip at ${first} (line ${line}) in the committed region loaded`,
        ).toBe(true)
        expect(view.recovery).toMatchObject({ location: { kind: 'jsonl', path }, firstLine: line })
        // A flipped final newline leaves an unterminated line, which reads as a torn write; any other damage is named.
        if (view.recovery!.defect !== undefined) expect(view.recovery!.defect.line).toBe(line)
        else expect(flips).toContainEqual(expect.objectContaining({ at: original.length - 1 }))
        expect(view.events as SessionEvent[]).toEqual(balanced(events.slice(0, line - 2)))
        if (viaLoad) {
          expect(warnings.slice(warned)).toHaveLength(1)
          expect(warnings.at(-1)).toMatch(new RegExp(`discarded lines? ${line}\\b`))
          expect(warnings.at(-1)).toContain(`"${path}"`)
        }
        figures.reportedDiscards++
      },
    ),
    { seed, numRuns, endOnFailure: true },
  )
  return figures
}
