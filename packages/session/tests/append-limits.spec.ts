/**
 * The JSON limit at `session.append`, fuzzed (bounded; `append-limits.stress.ts` runs the same probe at full size):
 * every rejected input leaves the session and the store exactly as they were, and every accepted one is recorded.
 */
import { describe, expect, it } from 'vitest'
import { appendFuzz } from './append-fuzz.js'

describe('append under fuzzed input', () => {
  it('rejected inputs change nothing, accepted ones are recorded (100 sequences, seeded)', () => {
    const figures = appendFuzz(100, 4242)
    expect(figures.sequences).toBe(100)
    expect(figures.accepted).toBeGreaterThan(0)
    expect(figures.rejected.deep + figures.rejected.huge + figures.rejected['not-json']).toBeGreaterThan(0)
  })
})
