/**
 * The secrets probe of issue 38 at full size (`pnpm test:stress`): many random cases through the real CLI, JSONL and
 * PostgreSQL (see secrets-probe.ts). `BRIDLE_STRESS_SCALE` (default 1) multiplies the counts; the fast-check seed is
 * the suite's (`FC_SEED`). Prints the cases run and the places read.
 */
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, inject, it } from 'vitest'
import { probeSecrets, secretCaseArb, type ProbeBackend } from './secrets-probe.js'

const scale = Number(process.env.BRIDLE_STRESS_SCALE ?? '1')

async function probe(name: string, runs: number, backend: () => ProbeBackend): Promise<void> {
  let places = 0
  let cases = 0
  await fc.assert(
    fc.asyncProperty(secretCaseArb, async (c) => {
      places += await probeSecrets(c, backend())
      cases++
    }),
    { numRuns: runs, endOnFailure: true },
  )
  console.log(`cli secrets stress ${name}: ${JSON.stringify({ cases, places })}`)
  expect(cases).toBe(runs)
}

describe('no credential Bridle holds leaves the process (full size)', () => {
  it('JSONL', () => probe('jsonl', Math.round(40 * scale), () => ({ kind: 'jsonl' })), 3_600_000)

  it(
    'PostgreSQL',
    () =>
      probe('postgres', Math.round(20 * scale), () => ({
        kind: 'postgres',
        url: inject('pgUrl'),
        schema: `secrets_${randomBytes(5).toString('hex')}`,
      })),
    3_600_000,
  )
})
