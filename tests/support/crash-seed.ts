/**
 * The seed of the crash probes' kill plans and workloads (`BRIDLE_CRASH_SEED`), read like `FC_SEED`: unset means
 * the fixed seed (what `pnpm test` and CI use, so a failure replays anywhere), an integer replays that run, and
 * `random` explores. The stress probes pass `fallback: 'random'` to explore by default. Where a kill lands in the
 * child's work still depends on the scheduler; the seed fixes everything else.
 */
export const DEFAULT_CRASH_SEED = 20_261_201

export function crashSeed(fallback: 'fixed' | 'random' = 'fixed', raw = process.env.BRIDLE_CRASH_SEED): number {
  const value = raw?.trim() ?? ''
  if (value === '') return fallback === 'fixed' ? DEFAULT_CRASH_SEED : Date.now() % 1_000_000
  if (value === 'random') return Date.now() % 1_000_000
  const seed = Number(value)
  if (!Number.isSafeInteger(seed))
    throw new Error(`BRIDLE_CRASH_SEED must be an integer or "random", got ${JSON.stringify(raw)}`)
  return seed
}
