import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bridle, DEMO_YAML, devWith, makeApp, sessionIdOf } from './helpers.js'
import { startView } from './view-server.js'

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version

describe('session ids: a unique prefix and `latest` wherever an id is taken', () => {
  let app: string
  let first: string
  let second: string
  beforeAll(async () => {
    app = makeApp(DEMO_YAML)
    first = sessionIdOf((await bridle(['run', 'hello'], app)).stderr)
    second = sessionIdOf((await bridle(['run', 'again'], app)).stderr)
  })

  it('inspect, export and inspect --html take latest, a unique prefix, and refuse an ambiguous one listing the ids', async () => {
    const latest = await bridle(['inspect', 'latest'], app)
    expect(latest.code, latest.stderr).toBe(0)
    expect(latest.stdout).toContain(`session ${second} `)

    // the random tail of an id tells two sessions of the same second apart
    const prefix = first.slice(0, -3)
    const byPrefix = await bridle(['inspect', prefix, '--json'], app)
    expect(byPrefix.code, byPrefix.stderr).toBe(0)
    expect(JSON.parse(byPrefix.stdout).id).toBe(first)

    const ambiguous = await bridle(['inspect', first.slice(0, 4)], app)
    expect(ambiguous.code).toBe(1)
    expect(ambiguous.stderr).toBe(
      `bridle: session "${first.slice(0, 4)}" is ambiguous: 2 stored ids start with it (${[first, second].sort().join(', ')}); type more of the id\n`,
    )
    expect(ambiguous.stdout).toBe('')

    const exported = await bridle(['export', 'latest', '--json', '-'], app)
    expect(exported.code, exported.stderr).toBe(0)
    expect(exported.stdout).toContain(second)

    const html = await bridle(['inspect', prefix, '--html', join(app, 'first.html')], app)
    expect(html.code, html.stderr).toBe(0)
    expect(html.stderr).toContain(`(session ${first},`)
  })

  it('run -s and dev -s resume latest or a prefix: the turn lands in that session', async () => {
    const run = await bridle(['run', '-s', first.slice(0, -2), 'third'], app)
    expect(run.code, run.stderr).toBe(0)
    expect(sessionIdOf(run.stderr)).toBe(first)
    const inspected = JSON.parse((await bridle(['inspect', first, '--json'], app)).stdout)
    expect(inspected.turns).toHaveLength(2)

    const dev = await devWith(app, ['fourth'], ['-s', first.slice(0, -1)])
    expect(dev.code, dev.stderr).toBe(0)
    expect(dev.stderr).toContain(`bridle dev: session ${first}; watching plugins`)
    expect(sessionIdOf(dev.stderr)).toBe(first)

    const missing = await bridle(['run', '-s', 'nope', 'x'], app)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('bridle: session "nope" not found (bridle sessions lists the stored ones)')
  })

  it('view latest prints the URL of the newest session', async () => {
    const view = await startView(['latest'], app)
    try {
      expect(view.url).toMatch(new RegExp(`#/session/${second}$`))
    } finally {
      await view.stop()
    }
  })

  it('`latest` with no session stored is a runtime failure that says so', async () => {
    const empty = makeApp(DEMO_YAML)
    const out = await bridle(['inspect', 'latest'], empty)
    expect(out.code).toBe(1)
    expect(out.stderr).toBe('bridle: no session is stored yet, so "latest" names none\n')
  })

  it('`bridle --version` and `-V` print the package version and exit 0', async () => {
    for (const flag of ['--version', '-V']) {
      const out = await bridle([flag], app)
      expect(out.code).toBe(0)
      expect(out.stdout).toBe(`${VERSION}\n`)
    }
  })
})
