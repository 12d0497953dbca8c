/**
 * Unprefixed secret-looking values: a random token with no telltale prefix (`sk-`, `ghp_`, …) is refused like a
 * prefixed one, while ordinary public values (kebab names, versions, UUIDs, short commit ids) stay allowed.
 */
import { inspect } from 'node:util'
import { ConfigError } from '@bridle/llm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Config, Environment, looksLikeRandomToken, looksLikeSecret } from '../src/index.js'
import { load, prod } from './harness.js'

const refused = (value: string) => () => Config({ ...prod, labels: { build: value } })

describe('unprefixed secret-looking label values', () => {
  const tokens: [string, string][] = [
    ['a 33-character alphanumeric token', 'q8Zr2LkP0vXm4NwTc7YbJ1sD5eHa9UfG3'],
    ['a 33-character lower-case alphanumeric token', 'q8zr2lkp0vxm4nwtc7ybj1sd5eha9ufg3'],
    ['a 32-character hex key', 'd41d8cd98f00b204e9800998ecf8427e'],
    ['a full 40-character commit id', '3f2a9c0d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39'],
    ['a base64 secret with + and /', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY1'],
    ['a base64url key with - and _', 'Xq3_vR9-kLm2Pz8_Wt4-Yb7Nc1Dh6Fj0Ga5s'],
    ['a token after other words', 'build q8Zr2LkP0vXm4NwTc7YbJ1sD5eHa9UfG3 ok'],
  ]
  for (const [label, value] of tokens) {
    it(`refuses ${label}`, () => {
      expect(refused(value)).toThrow(ConfigError)
      expect(refused(value)).toThrow(
        'plugin-environment: invalid config: labels.build: looks like a credential; only public values may be exposed',
      )
      expect(() => Config({ environment: value, region: 'r' })).toThrow(/environment: looks like a credential/)
    })
  }

  const publicValues = [
    'production',
    'prod-eu-west-1-blue-canary-cluster-01',
    'eu_west_1_blue_green_canary_cluster_02',
    'v1.2.3-rc.1+build.20240601',
    '123e4567-e89b-12d3-a456-426614174000',
    '3f2a9c0d8e7b',
    '2024-06-01T12:00:00Z',
    'registry.example.com/team/app:1.4.2',
    'Customer Support Tier 2 (EMEA)',
    'internationalization',
    'MyVeryLongServiceNameForProductionUse',
  ]
  it('keeps public values allowed', () => {
    for (const value of publicValues) {
      expect(looksLikeRandomToken(value), value).toBe(false)
      expect(Config({ ...prod, labels: { build: value } }).labels, value).toEqual({ build: value })
    }
  })

  it('a refused token never appears in the error, its issues or the failed plugin', () => {
    const value = 'q8Zr2LkP0vXm4NwTc7YbJ1sD5eHa9UfG3'
    const fork = load().plugin(Environment, { ...prod, labels: { build: value } })
    const error = fork.error as ConfigError
    expect(error).toBeInstanceOf(ConfigError)
    expect(inspect(error, { depth: 10 })).not.toContain(value)
    expect(JSON.stringify(error.issues)).not.toContain(value)
  })

  it('property: random keys of 33 characters in the common encodings are refused (seeded)', () => {
    const seed = 1433
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom('base64url', 'base64', 'hex'),
        (n, encoding) => {
          // Fresh random bytes per run, derived from fast-check's integer so a failing case can be replayed.
          const bytes = randomBytesFrom(n, 32)
          const value = Buffer.from(bytes)
            .toString(encoding as BufferEncoding)
            .slice(0, 33)
          expect(looksLikeSecret(value), `${encoding} ${value}`).toBe(true)
        },
      ),
      { seed, numRuns: 300 },
    )
  })
})

/** Deterministic pseudo-random bytes from a seed (xorshift32), so fast-check's seed fixes the values. */
function randomBytesFrom(seed: number, length: number): Uint8Array {
  let x = seed | 1
  const out = new Uint8Array(length)
  for (let i = 0; i < length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}
