/**
 * The racing-symlink probe at full size (`pnpm test:stress`): 30,000 reads (times `BRIDLE_STRESS_SCALE`) while a
 * child swaps a directory for a symlink to the outside. Prints its figures; the README quotes a run.
 */
import { expect, it } from 'vitest'
import { raceProbe } from './race-probe.js'

const scale = Number(process.env.BRIDLE_STRESS_SCALE ?? '1')

it('read_file never returns the outside file under a racing symlink swap (full size)', async () => {
  const outcomes = await raceProbe(Math.round(30_000 * scale))
  console.log(`plugin-read-file stress race: ${JSON.stringify({ ...outcomes, other: outcomes.other.length })}`)
  expect(outcomes.leaked).toBe(0)
  expect(outcomes.other).toEqual([])
  expect(outcomes.refusedAfterOpen).toBeGreaterThan(0)
})
