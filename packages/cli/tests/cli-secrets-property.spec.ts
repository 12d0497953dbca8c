/**
 * Done-means of issue 38, through the real CLI: random credentials, split at random points across the answer's deltas,
 * a tool call's arguments, a file the model reads and two error bodies, never show 8 characters of themselves in
 * anything Bridle prints, stores (JSONL and PostgreSQL) or sends back to the model, and every stored session still
 * verifies. A few runs here; cli-secrets-property.stress.ts runs many (`pnpm test:stress`).
 */
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, inject, it } from 'vitest'
import { probeSecrets, secretCaseArb } from './secrets-probe.js'

describe('no credential Bridle holds leaves the process', () => {
  it('JSONL: three random cases', async () => {
    await fc.assert(
      fc.asyncProperty(secretCaseArb, (c) => probeSecrets(c, { kind: 'jsonl' }).then(() => undefined)),
      { numRuns: 3, endOnFailure: true },
    )
  }, 600_000)

  it('PostgreSQL: two random cases', async () => {
    await fc.assert(
      fc.asyncProperty(secretCaseArb, (c) =>
        probeSecrets(c, {
          kind: 'postgres',
          url: inject('pgUrl'),
          schema: `secrets_${randomBytes(5).toString('hex')}`,
        }).then(() => undefined),
      ),
      { numRuns: 2, endOnFailure: true },
    )
  }, 600_000)
})
