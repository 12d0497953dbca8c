/**
 * The append fuzz probe at full size (`pnpm test:stress`): 2,000 random sequences (times `BRIDLE_STRESS_SCALE`) of
 * valid, too deep, too large and non-JSON inputs. Prints its figures; the README quotes a run.
 */
import { expect, it } from 'vitest'
import { appendFuzz } from './append-fuzz.js'

const scale = Number(process.env.BRIDLE_STRESS_SCALE ?? '1')
const seed = Number(process.env.BRIDLE_FUZZ_SEED ?? Date.now() % 1_000_000)

it(`rejected appends change nothing (full size, seed ${seed}; rerun with BRIDLE_FUZZ_SEED=${seed})`, () => {
  const figures = appendFuzz(Math.round(2000 * scale), seed)
  console.log(`session stress append fuzz (seed ${seed}): ${JSON.stringify(figures)}`)
  expect(figures.accepted).toBeGreaterThan(0)
})
