import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_FC_SEED, fastCheckSeed } from './support/fast-check-seed.js'

describe('property tests run from a reproducible seed', () => {
  it('uses the fixed default unless FC_SEED names another', () => {
    expect(fastCheckSeed(undefined)).toBe(DEFAULT_FC_SEED)
    expect(fastCheckSeed('')).toBe(DEFAULT_FC_SEED)
    expect(fastCheckSeed('-1234')).toBe(-1234)
    expect(fc.readConfigureGlobal().seed).toBe(fastCheckSeed(process.env.FC_SEED))
  })

  it('rejects an FC_SEED that is not an integer, naming the variable', () => {
    expect(() => fastCheckSeed('12abc')).toThrow('FC_SEED must be an integer or "random", got "12abc"')
    expect(() => fastCheckSeed('1.5')).toThrow('FC_SEED')
  })

  it('FC_SEED=random picks a 32-bit seed', () => {
    const seed = fastCheckSeed('random')
    expect(Number.isInteger(seed) && seed >= -(2 ** 31) && seed < 2 ** 31).toBe(true)
  })

  it('a failing property reports the seed and path that replay it', () => {
    const failing = () => fc.assert(fc.property(fc.integer(), (n) => n < 1000))
    let message = ''
    try {
      failing()
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain(`seed: ${fc.readConfigureGlobal().seed}`)
    const path = /path: "([^"]+)"/.exec(message)?.[1]
    expect(path).toBeDefined()
    // the printed seed and path replay the same shrunk counterexample
    expect(() =>
      fc.assert(
        fc.property(fc.integer(), (n) => n < 1000),
        { path },
      ),
    ).toThrow('Counterexample: [1000]')
  })
})
