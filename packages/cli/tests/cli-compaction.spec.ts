import { describe, expect, it } from 'vitest'
import { bridle, COMPACTION_YAML, DEMO_YAML, devWith, makeApp, sessionIdOf } from './helpers.js'

/** A second prompt on the compacted session: its request starts from the checkpoint, and the cache report says why. */
async function dev2(app: string, id: string) {
  const run = await bridle(['run', '--session', id, 'What is in README.md?'], app)
  expect(run.code).toBe(0)
  const cache = await bridle(['inspect', id, '--cache'], app)
  expect(cache.stdout).toMatch(
    /messages ✗ at message 1: history compacted in turn 2 step 1 \(manual\): \d+ messages → 1 summary, checkpoint at seq \d+/,
  )
}

describe('compaction in the CLI', () => {
  it('/compact in bridle dev compacts the history; inspect names the compaction, verifies the summary request', async () => {
    const app = makeApp(COMPACTION_YAML)
    const dev = await devWith(app, ['What is in package.json?', '/compact'])
    expect(dev.code).toBe(0)
    expect(dev.stderr).toMatch(/bridle dev: compacted \d+ messages into a summary \(turn 2, checkpoint at seq \d+\)\n/)
    const id = sessionIdOf(dev.stderr)
    const overview = await bridle(['inspect', id], app)
    expect(overview.stdout).toMatch(
      /turn 2 \(seq \d+\) completed\n {2}step 1 \(seq \d+\) compaction: \d+ messages → 1 summary/,
    )
    const verified = await bridle(['inspect', id, '--verify'], app)
    expect(verified.code).toBe(0)
    expect(verified.stdout).toMatch(/✓ turn 2 step 1 attempt 1 \(summary request\)/)
    const cache = await bridle(['inspect', id, '--cache'], app)
    // the summary request carries the whole previous request (the turn was closed): its prefix holds
    expect(cache.stdout).toMatch(/turn 2 step 1 \(summary request\): system ✓ · tools ✓ · messages ✓/)
    await dev2(app, id)
  })
})

describe('automatic compaction in bridle run', () => {
  it('says it compacts on stderr and never prints the summary as the answer', async () => {
    const yaml = DEMO_YAML.replace(
      'plugins:\n',
      'plugins:\n  - package: "@bridle/plugin-compaction"\n    config: { contextWindow: 1200, threshold: 0.5, lowWater: 0.45, summaryMaxTokens: 20 }\n',
    )
    const app = makeApp(yaml)
    const first = await bridle(['run', 'What is in package.json?'], app)
    expect(first.code).toBe(0)
    const id = sessionIdOf(first.stderr)
    const second = await bridle(['run', '--session', id, 'What is in README.md?'], app)
    expect(second.code).toBe(0)
    const stderr = first.stderr + second.stderr
    expect(stderr).toMatch(/bridle: compacting the history: summarizing \d+ messages\n/)
    expect(stderr).toContain('bridle: history compacted: Summary of the earlier conversation')
    expect(first.stdout + second.stdout).not.toContain('Summary (scripted)')
    const verified = await bridle(['inspect', id, '--verify'], app)
    expect(verified.code).toBe(0)
    expect(verified.stdout).toContain('(summary request)')
  })
})
