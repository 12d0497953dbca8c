/**
 * The smaller holes of issue 38, each in the CLI's grammar: a 5,000-character session id is a session that is not
 * found; `view --host [::1]` serves on IPv6 loopback; a malformed percent escape in a viewer URL is the client's
 * mistake (400); and prompts piped into `bridle dev` all at once are each run (they were read too late and the
 * process waited forever).
 */
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, bridle, DEMO_YAML, makeApp, offlineEnv } from './helpers.js'
import { startView, type RunningView } from './view-server.js'

const LONG_ID = 'a'.repeat(5000)
const notFound = `bridle: session "${LONG_ID}" not found (bridle sessions lists the stored ones)\n`

describe('a 5,000-character session id', () => {
  it('is a session that is not found, for every command that takes an id', async () => {
    const app = makeApp(DEMO_YAML)
    const runs = await Promise.all([
      bridle(['inspect', LONG_ID], app),
      bridle(['inspect', LONG_ID, '--html', 'x.html'], app),
      bridle(['run', '--session', LONG_ID, 'hi'], app),
    ])
    for (const out of runs) {
      expect(out.code).toBe(1)
      expect(out.stderr.split('\n').filter((line) => line.startsWith('bridle: session "'))).toEqual([notFound.trim()])
      expect(out.stderr).not.toContain('ENAMETOOLONG')
    }
  })
})

describe('bridle view', () => {
  let app: string
  let view: RunningView | undefined
  beforeAll(() => {
    app = makeApp(DEMO_YAML)
  })
  afterAll(async () => {
    await view?.stop()
  })

  it('--host [::1] serves on IPv6 loopback and prints a URL that works', async () => {
    view = await startView(['--host', '[::1]'], app)
    expect(view.url).toMatch(/^http:\/\/\[::1\]:\d+\/$/)
    const sessions = await fetch(new URL('/api/sessions', view.url))
    expect(sessions.status).toBe(200)
    expect(await sessions.json()).toEqual([])
  })

  it('a malformed percent escape in a URL is a 400 that says so, not a 500', async () => {
    const bad = await fetch(new URL('/api/sessions/%E0%A4%A', view!.url))
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({ error: 'malformed URL: /api/sessions/%E0%A4%A' })
    const { code, stderr } = await view!.stop()
    view = undefined
    expect(code).toBe(0)
    expect(stderr).not.toContain('URIError')
  })
})

describe('bridle dev with every prompt piped at once', () => {
  it('runs each line and exits at the end of input', async () => {
    const app = makeApp(DEMO_YAML)
    const child = spawn(process.execPath, [BIN, 'dev'], {
      cwd: app,
      env: offlineEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    child.stdin.end('first prompt\nsecond prompt\n')
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code).toBe(0)
    // one `ready` before the first prompt and one after each
    expect(stderr.match(/bridle dev: ready\n/g)).toHaveLength(3)
  })
})
