/**
 * Every vitest project runs this first (vitest.config.ts), so every fast-check property in the repository draws
 * from one fixed seed: a CI failure reproduces on any machine. fast-check prints the seed and the shrunk path of
 * a failing property; `FC_SEED=<that seed> pnpm test` replays it, and `FC_SEED=random` explores new inputs (the
 * seed it picked is printed with any failure). See TESTING.md.
 */
import fc from 'fast-check'

/** The seed CI uses. Changing it is allowed (it only picks other inputs) but every property must pass with it. */
export const DEFAULT_FC_SEED = 20_251_201

export function fastCheckSeed(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_FC_SEED
  if (raw.trim() === 'random') return (Math.random() * 0x1_0000_0000) | 0
  const seed = Number(raw)
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer or "random", got ${JSON.stringify(raw)}`)
  return seed | 0
}

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: fastCheckSeed(process.env.FC_SEED) })
