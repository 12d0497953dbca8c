import { spawn } from 'node:child_process'
import { existsSync, openSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { expectPipedPromises, pipedPlan, runPiped } from './dev-piped-input.js'
import { BIN, bridle, DEMO_YAML, devWith, makeApp, offlineEnv } from './helpers.js'

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

/** How long a `bridle dev` may run before a test kills it (it should take about a second). */
const GUARD_MS = 60_000

/** `bridle dev ARGS` with stdin from `file` (e.g. /dev/null). */
function devFrom(file: string, cwd: string, args: string[] = []): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'dev', ...args], {
      cwd,
      env: offlineEnv(),
      stdio: [openSync(file, 'r'), 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr += d))
    // a dev that never exits fails the test, and is not left running
    const guard = setTimeout(() => child.kill('SIGKILL'), GUARD_MS)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(guard)
      resolve({ code, stderr })
    })
  })
}

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

  it('`printf "p1\\np2\\n" | bridle dev`: both prompts, written before the app is ready, are answered in order, then it exits', async () => {
    const app = makeApp(DEMO_YAML)
    const plan = {
      lines: [
        { text: 'p1', arrival: { at: 'spawn' as const } },
        { text: 'p2', arrival: { at: 'spawn' as const } },
      ],
      eof: { at: 'spawn' as const },
    }
    const run = await runPiped(app, plan)
    expectPipedPromises(app, plan, run)
    const id = /^bridle: session (\S+)$/m.exec(run.stderr)![1]!
    const listed = await bridle(['sessions', '--json'], app)
    expect(JSON.parse(listed.stdout).map((r: { id: string }) => r.id)).toEqual([id])
  })

  it('`bridle dev </dev/null` exits 0 at once and names no session, since none was stored', async () => {
    const app = makeApp(DEMO_YAML)
    const out = await devFrom('/dev/null', app)
    expect(out.code, out.stderr).toBe(0)
    expect(out.stderr).toContain('bridle dev: new session; watching plugins')
    expect(out.stderr).toContain('bridle dev: no prompt ran, so no session was stored')
    expect(out.stderr).not.toMatch(/session \d{8}-/)
    const dir = join(app, 'sessions')
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([])
  })

  it("exits with the last prompt's code: 1 after a turn that hit its step cap, 0 when a later prompt completes", async () => {
    const app = makeApp(DEMO_YAML)
    // the package question takes two steps (read_file, then the answer): one step is its cap
    const failing = await devPiped(app, ['What is the package name of this project?'], ['--max-steps', '1'])
    expect(failing.code, failing.stderr).toBe(1)
    expect(failing.stderr).toContain('bridle: the turn ended max-steps')
    const recovered = await devPiped(app, ['What is the package name of this project?', 'hello'], ['--max-steps', '1'])
    expect(recovered.code, recovered.stderr).toBe(0)
  })

  it('`/compact` without a compaction plugin writes no turn: the log holds only the prompts', async () => {
    const app = makeApp(DEMO_YAML)
    const out = await devPiped(app, ['hello', '/compact', 'again'])
    expect(out.code, out.stderr).toBe(0)
    expect(out.stderr).toContain('bridle dev: nothing compacted: no compaction policy is loaded')
    const id = /^bridle: session (\S+)$/m.exec(out.stderr)![1]!
    const inspected = await bridle(['inspect', id, '--json'], app)
    const turns = JSON.parse(inspected.stdout).turns as { turn: number; steps: unknown[] }[]
    expect(turns.map((t) => [t.turn, t.steps.length])).toEqual([
      [1, 1],
      [2, 1],
    ])
    // `/compact` alone stores nothing
    const alone = await devPiped(app, ['/compact'])
    expect(alone.code).toBe(0)
    expect(alone.stderr).toContain('bridle dev: no prompt ran, so no session was stored')
  })

  // 100 runs of a real `bridle dev`, each with at most two prompts; dev-piped.stress.ts runs longer inputs
  it('answers every prompt in order and exits at end of input, whenever each line arrives', {
    timeout: 600_000,
  }, async () => {
    const app = makeApp(DEMO_YAML)
    await fc.assert(
      fc.asyncProperty(pipedPlan(2), async (plan) => expectPipedPromises(app, plan, await runPiped(app, plan))),
      { numRuns: 100, endOnFailure: true },
    )
  })
})

/** `bridle dev ARGS` with every line and the end of input written at once, as `printf … | bridle dev` does. */
function devPiped(app: string, lines: string[], args: string[] = []) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'dev', ...args], { cwd: app, env: offlineEnv() })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.stdin.end(lines.map((l) => `${l}\n`).join(''))
    const guard = setTimeout(() => child.kill('SIGKILL'), GUARD_MS)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(guard)
      resolve({ code, stdout, stderr })
    })
  })
}
