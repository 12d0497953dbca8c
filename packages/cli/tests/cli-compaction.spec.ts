import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { BIN, bridle, DEMO_YAML, makeApp, offlineEnv, sessionIdOf } from './helpers.js'

const COMPACTION_YAML = DEMO_YAML.replace('plugins:\n', 'plugins:\n  - "@bridle/plugin-compaction"\n')

/** Runs `bridle dev` with the given input lines and waits for it to exit. */
function devWith(cwd: string, lines: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'dev'], { cwd, env: offlineEnv() })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => {
      stderr += d
      // one line at a time: dev says ready before the first prompt and after each, so line n goes after ready n + 1
      const ready = (stderr.match(/bridle dev: ready\n/g) ?? []).length
      if (ready === sent + 1) {
        if (sent < lines.length) child.stdin.write(`${lines[sent++]}\n`)
        else if (sent === lines.length) {
          sent++
          child.stdin.end()
        }
      }
    })
    let sent = 0
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

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
