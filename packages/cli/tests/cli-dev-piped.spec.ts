import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEMO_YAML, devWith, makeApp } from './helpers.js'

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

describe('piped bridle dev', () => {
  it('prints as many `ready` lines as its README says: one before the first prompt and one after each', async () => {
    expect(README).toContain(
      'says `bridle dev: ready` once when it is ready for the first prompt and again\n  after each prompt: n prompts, n + 1 `ready` lines.',
    )
    const app = makeApp(DEMO_YAML)
    const out = await devWith(app, ['first question', 'second question'])
    expect(out.code).toBe(0)
    expect(out.stderr.match(/^bridle dev: ready$/gm)).toHaveLength(2 + 1)
  })
})
