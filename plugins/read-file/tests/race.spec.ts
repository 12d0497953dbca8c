/**
 * Confinement under a race (bounded; `race.stress.ts` runs the same probe at full size): while a child swaps a
 * directory for a symlink to the outside, `read_file` never returns the outside file. The check-then-open reader
 * this replaced returned it in 41–73 of 3,000 calls.
 */
import { describe, expect, it } from 'vitest'
import { raceProbe } from './race-probe.js'

const CALLS = 3000

describe('read_file confinement under a racing symlink swap', () => {
  it(`never returns the outside file in ${CALLS} calls while a directory is swapped for a symlink`, async () => {
    const outcomes = await raceProbe(CALLS)
    // The race really ran: some calls saw the real directory and some saw the symlink (and were refused).
    expect(outcomes.inside, JSON.stringify(outcomes)).toBeGreaterThan(0)
    expect(outcomes.refusedBeforeOpen + outcomes.refusedAfterOpen, JSON.stringify(outcomes)).toBeGreaterThan(0)
    expect(outcomes.leaked, JSON.stringify(outcomes)).toBe(0)
    expect(outcomes.other).toEqual([])
  })
})
