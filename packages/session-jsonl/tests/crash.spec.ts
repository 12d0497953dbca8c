/**
 * Crash safety with real processes, bounded for CI; `pnpm test:stress` runs the same probes
 * at full size (crash.stress.ts).
 *
 * 1. after a complete run, copies of its file truncated at hundreds of byte offsets must each reload to exactly the
 *    complete lines plus closers (P1), never an error (P2), report an unterminated last line, and repair
 *    idempotently and convergently (P8);
 * 2. children killed with SIGKILL at random moments must reload the same way, keep every event they reported as
 *    flushed (P3), and close every started tool call as TOOL_OUTCOME_UNKNOWN (P9); a kill before publication leaves
 *    no session file, at most a temp file (P7).
 */
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildChild } from '../../../tests/support/build-child.js'
import { killProbe } from './crash/kill-probe.js'
import { truncationProbe } from './crash/truncation-probe.js'
import { captureWarnings } from './helpers.js'
import { crashSeed } from '../../../tests/support/crash-seed.js'

let bundle: string
beforeAll(async () => {
  bundle = await buildChild(fileURLToPath(new URL('./crash/child.ts', import.meta.url)))
}, 120_000)

const seed = crashSeed()

describe(`crash recovery with real processes (seed ${seed}; rerun with BRIDLE_CRASH_SEED=${seed})`, () => {
  it('every truncation of a real child-written log reloads to its complete lines plus closers, and a torn line is reported', async () => {
    const warnings = captureWarnings()
    const figures = await truncationProbe({ bundle, seed, turns: 3, minOffsets: 220, warnings })
    expect(figures.offsets).toBeGreaterThanOrEqual(200)
    expect(figures.tornTails).toBeGreaterThan(100)
    expect(figures.repairCrashes).toBeGreaterThan(10)
  }, 120_000)

  it('children killed with SIGKILL at random moments reload to the committed prefix and keep every flushed event', async () => {
    const warnings = captureWarnings()
    const figures = await killProbe({ bundle, seed: seed + 1, runs: 10, turns: 20, parallel: 3, warnings })
    expect(figures.kills + figures.finishedFirst).toBe(10)
    expect(figures.kills).toBeGreaterThanOrEqual(8)
  }, 120_000)
})
