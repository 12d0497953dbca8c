/**
 * The crash and damage probes at full size (`pnpm test:stress`): SIGKILLed writer children, truncation offsets of a
 * real log, and random byte flips of a sealed log. Each prints its figures; the package README quotes a run.
 * `BRIDLE_STRESS_SCALE` (default 1) multiplies the counts; `BRIDLE_CRASH_SEED` fixes the seed.
 */
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildChild } from '../../../tests/support/build-child.js'
import { flipProbe } from './crash/flip-probe.js'
import { killProbe } from './crash/kill-probe.js'
import { truncationProbe } from './crash/truncation-probe.js'
import { captureWarnings } from './helpers.js'
import { crashSeed } from '../../../tests/support/crash-seed.js'

let bundle: string
beforeAll(async () => {
  bundle = await buildChild(fileURLToPath(new URL('./crash/child.ts', import.meta.url)))
})

const scale = Number(process.env.BRIDLE_STRESS_SCALE ?? '1')
const seed = crashSeed('random')
const report = (probe: string, figures: object) =>
  console.log(`session-jsonl stress (seed ${seed}) ${probe}: ${JSON.stringify(figures)}`)

describe(`session-jsonl crash and damage probes (seed ${seed}; rerun with BRIDLE_CRASH_SEED=${seed})`, () => {
  it('SIGKILL of real writer children loses no flushed event', async () => {
    const runs = Math.round(300 * scale)
    const figures = await killProbe({ bundle, seed, runs, turns: 40, parallel: 3, warnings: captureWarnings() })
    report('kills', figures)
    expect(figures.kills + figures.finishedFirst).toBe(runs)
    expect(figures.kills).toBeGreaterThanOrEqual(runs * 0.9)
  })

  it('every truncation offset of a real log reloads to its complete lines, and a torn line is reported', async () => {
    const figures = await truncationProbe({
      bundle,
      seed,
      turns: 12,
      minOffsets: Math.round(2500 * scale),
      warnings: captureWarnings(),
    })
    report('truncations', figures)
    expect(figures.offsets).toBeGreaterThanOrEqual(2500 * scale)
  })

  it('random byte flips of a sealed log never load as altered content', async () => {
    const numRuns = Math.round(5000 * scale)
    const figures = await flipProbe({ seed, numRuns, warnings: captureWarnings() })
    report('byte flips', figures)
    expect(figures.runs).toBe(numRuns)
  })
})
