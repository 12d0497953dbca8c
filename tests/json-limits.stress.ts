/**
 * The followup fuzz probe at full size (`pnpm test:stress`): 300 random sequences (times `BRIDLE_STRESS_SCALE`) of
 * valid, too deep and non-JSON followups, each on a fresh agent. Prints its figures; the session README quotes a run.
 */
import { expect, it } from 'vitest'
import { followupFuzz } from './followup-fuzz.js'

const scale = Number(process.env.BRIDLE_STRESS_SCALE ?? '1')
const seed = Number(process.env.BRIDLE_FUZZ_SEED ?? Date.now() % 1_000_000)

it(`rejected followups change nothing (full size, seed ${seed}; rerun with BRIDLE_FUZZ_SEED=${seed})`, async () => {
  const figures = await followupFuzz(Math.round(300 * scale), seed)
  console.log(`followup stress fuzz (seed ${seed}): ${JSON.stringify(figures)}`)
  expect(figures.turns).toBeGreaterThan(0)
})
