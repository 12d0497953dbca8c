/**
 * The CLI over session-postgres: a `bridle.yaml` row selects the backend; `run` writes the session to PostgreSQL
 * (no JSONL file appears), `run --session` resumes it at once (the first run gave its lease back), `sessions` and
 * `inspect --verify/--cache` read it from the database, and `inspect --follow` tails it while another process writes.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { BIN, bridle, DEMO_YAML, makeApp, offlineEnv, sessionIdOf } from './helpers.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's throwaway PostgreSQL server (tests/global-setup.mjs). */
    pgUrl: string
  }
}

const QUESTION = 'What is the package name of this project?'

const yaml = (schema: string) => `plugins:
  - "@bridle/plugin-workspace"
  - "@bridle/plugin-read-file"
  - package: "@bridle/session-postgres"
    config:
      connectionString: "${inject('pgUrl')}"
      schema: ${schema}
      poolSize: 2
systemPrompt:
  persona: "You answer questions about the project in {{cwd}}."
agent:
  cwd: ./sample-project
`

describe('bridle with a session-postgres row', () => {
  let app: string
  let id: string

  beforeAll(async () => {
    app = makeApp(yaml(`cli_${randomBytes(5).toString('hex')}`))
    const first = await bridle(['run', QUESTION], app)
    expect(first.code, first.stderr).toBe(0)
    id = sessionIdOf(first.stderr)
  }, 120_000)

  it('run writes the session to the database, not to JSONL files; run --session resumes it at once', async () => {
    expect(existsSync(join(app, '.bridle'))).toBe(false)
    expect(existsSync(join(app, 'sessions'))).toBe(false)
    const again = await bridle(['run', '--session', id, 'And which file told you?'], app)
    expect(again.code, again.stderr).toBe(0)
    expect(sessionIdOf(again.stderr)).toBe(id)
  })

  it('sessions lists it from the database', async () => {
    const listed = JSON.parse((await bridle(['sessions', '--json'], app)).stdout)
    expect(listed).toEqual([expect.objectContaining({ id })])
  })

  it('inspect --verify and --cache read it from the database', async () => {
    const out = await bridle(['inspect', id, '--verify', '--cache'], app)
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout).toContain(`session ${id}`)
    expect(out.stdout).toMatch(/turn 1 .*completed/)
    expect(out.stdout).toMatch(/verification passed: \d+ requests match their digests/)
    expect(out.stdout).toMatch(/cache/i)
  })

  it('inspect --follow prints the events another process writes, until interrupted', async () => {
    const follower = spawn(process.execPath, [BIN, 'inspect', id, '--follow'], {
      cwd: app,
      env: offlineEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    follower.stdout.on('data', (d) => (stdout += d))
    follower.stderr.on('data', (d) => (stderr += d))
    const exited = new Promise<number | null>((resolve) => follower.on('close', resolve))
    try {
      await expect
        .poll(() => stderr, { timeout: 60_000 })
        .toMatch(new RegExp(`bridle: following session ${id} from seq \\d+; Ctrl-C to stop`))
      const before = stdout
      const third = await bridle(['run', '--session', id, 'One more question.'], app)
      expect(third.code, third.stderr).toBe(0)
      await expect.poll(() => stdout.slice(before.length), { timeout: 60_000 }).toMatch(/turn\/end/)
      const followed = stdout.slice(before.length)
      expect(followed).toMatch(/^ +\d+ session\/end-seed/m)
      expect(followed).toMatch(/^ +\d+ user\/message +user/m)
      expect(followed).toMatch(/^ +\d+ assistant\/message /m)
      expect(followed).toMatch(/^ +\d+ turn\/end /m)
    } finally {
      follower.kill('SIGINT')
    }
    expect(await exited).toBe(0)
  }, 120_000)

  it('an app whose backend cannot follow refuses --follow with a usage error', async () => {
    const jsonl = makeApp(DEMO_YAML)
    const run = await bridle(['run', QUESTION], jsonl)
    const out = await bridle(['inspect', sessionIdOf(run.stderr), '--follow'], jsonl)
    expect(out.code).toBe(2)
    expect(out.stderr).toContain(
      'bridle: --follow needs a session backend that can follow a live session (such as @bridle/session-postgres); this app uses one that cannot',
    )
  }, 120_000)
})
