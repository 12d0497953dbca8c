/**
 * The truncation probe: a real child writes a complete run; copies of its file cut at
 * many byte offsets (every line boundary ±1, plus random offsets) must each reload to exactly the complete lines
 * plus closers, never throw, report an unterminated last line as a recovered torn tail (in `inspect`, in `load`,
 * and as one warning naming the file, the line and its size), and repair idempotently and convergently.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KNOWN_SESSION_EVENT_TYPES } from '@bridle/session'
import { expect } from 'vitest'
import { eventLine } from '../../src/index.js'
import { noSyncFs } from '../fixtures/faulty-fs.js'
import { makeApp, unsealed } from '../helpers.js'
import { balanced, completeLines, rng, runChild } from './run-child.js'

export interface TruncationFigures {
  /** Events in the child's complete log. */
  readonly events: number
  /** Distinct truncation offsets reloaded. */
  readonly offsets: number
  /** Of those, offsets inside a line (a torn tail that had to be reported). */
  readonly tornTails: number
  /** Offsets at which a crash during the repair itself was simulated and converged. */
  readonly repairCrashes: number
}

/**
 * Runs the probe. `turns` sizes the child's log; at least `minOffsets` offsets are tried (all line boundaries ±1
 * first). `warnings` is the caller's capture of `session-jsonl` warnings.
 */
export async function truncationProbe(options: {
  bundle: string
  seed: number
  turns: number
  minOffsets: number
  warnings: string[]
}): Promise<TruncationFigures> {
  const { bundle, seed, turns, minOffsets, warnings } = options
  const childRoot = join(mkdtempSync(join(tmpdir(), 'bridle-crash-')), 'sessions')
  const run = await runChild(bundle, childRoot, turns, 1)
  expect(run.lines.at(-1)).toMatch(/^done \d+$/)
  const full = readFileSync(join(childRoot, 'crash.jsonl'))
  const { events: all, ends, headerEnd } = completeLines(full)
  expect(all).toHaveLength(Number(run.lines.at(-1)!.split(' ')[1]))
  // Every known event type occurs, so its boundaries are among the offsets below.
  expect(new Set(all.map((e) => e.type))).toEqual(new Set(KNOWN_SESSION_EVENT_TYPES))

  const random = rng(seed)
  const offsets = new Set<number>([headerEnd, full.length])
  for (const end of ends)
    for (const k of [end - 1, end, end + 1]) if (k >= headerEnd && k <= full.length) offsets.add(k)
  while (offsets.size < Math.max(minOffsets, ends.length * 3 + 30))
    offsets.add(headerEnd + Math.floor(random() * (full.length - headerEnd + 1)))

  const { persistence, root } = makeApp({}, noSyncFs)
  mkdirSync(root, { recursive: true })
  const path = join(root, 'crash.jsonl')
  const header = unsealed(full.subarray(0, headerEnd).toString('utf8'))
  let tornTails = 0
  let repairCrashes = 0
  for (const k of [...offsets].sort((a, b) => a - b)) {
    const image = full.subarray(0, k)
    writeFileSync(path, image)
    const complete = ends.filter((end) => end <= k).length
    const committed = complete === 0 ? headerEnd : ends[complete - 1]!
    const expected = balanced(all.slice(0, complete))
    const fragment = k - committed
    const recovery =
      fragment === 0
        ? undefined
        : {
            location: { kind: 'jsonl', path },
            firstLine: complete + 2,
            lastLine: complete + 2,
            droppedLines: 0,
            droppedEvents: 0,
            fragmentBytes: fragment,
          }
    const inspected = await persistence.inspect('crash')
    expect(inspected.events, `offset ${k}`).toEqual(expected)
    expect(inspected.recovery, `offset ${k}`).toEqual(recovery)
    expect(readFileSync(path).equals(image), `inspect wrote at offset ${k}`).toBe(true)
    const warned = warnings.length
    const loaded = await persistence.load('crash')
    expect(loaded.events, `offset ${k}`).toEqual(expected)
    expect(loaded.recovery, `offset ${k}`).toEqual(recovery)
    expect(warnings.slice(warned), `offset ${k}`).toEqual(
      fragment === 0
        ? []
        : [
            `session-jsonl: session "crash": discarded line ${complete + 2} of "${path}" (a ${fragment}-byte unterminated line)`,
          ],
    )
    if (fragment > 0) tornTails++
    const repaired = readFileSync(path)
    expect(unsealed(repaired.toString('utf8'))).toBe(header + expected.map(eventLine).join(''))
    await persistence.load('crash')
    expect(readFileSync(path).equals(repaired), `second load changed the file at offset ${k}`).toBe(true)
    // P8: a crash at any byte of the repair (inside the truncated tail or the closer append) converges.
    if (expected.length > complete && k % 5 === 0) {
      for (const j of [committed, committed + 1, Math.floor((committed + repaired.length) / 2), repaired.length - 1]) {
        writeFileSync(
          path,
          j <= k
            ? Buffer.concat([full.subarray(0, committed), repaired.subarray(committed, Math.max(committed, j))])
            : repaired.subarray(0, j),
        )
        await persistence.load('crash')
        expect(readFileSync(path).equals(repaired), `repair crash at ${j} (offset ${k}) did not converge`).toBe(true)
      }
      repairCrashes++
    }
  }
  return { events: all.length, offsets: offsets.size, tornTails, repairCrashes }
}
