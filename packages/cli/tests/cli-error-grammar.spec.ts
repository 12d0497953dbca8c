import { createServer, type Server } from 'node:net'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

// Errors Node raises on what a user typed reach them in the CLI's grammar: one `bridle:` line that names what they
// typed and what to do, never a raw `ENOENT …` or `listen EADDRINUSE`, and nothing half-written behind.
describe('raw Node errors in the CLI grammar', () => {
  let app: string
  let id: string
  beforeAll(async () => {
    app = makeApp(DEMO_YAML)
    id = sessionIdOf((await bridle(['run', 'hello'], app)).stderr)
  })

  let busy: Server | undefined
  afterEach(() => busy?.close())

  it('--html and --json into a missing folder: a usage error naming the flag, the path and the folder; nothing written', async () => {
    const before = readdirSync(app)
    const html = await bridle(['inspect', id, '--html', 'nope/out.html'], app)
    expect(html.code).toBe(2)
    expect(html.stderr).toBe(
      `bridle: --html nope/out.html: the folder ${join(app, 'nope')} does not exist (create the folder first, or name a file in one that exists)\n`,
    )
    const json = await bridle(['export', id, '--json', 'nope/spans.json'], app)
    expect(json.code).toBe(2)
    expect(json.stderr).toMatch(/^bridle: --json nope\/spans\.json: the folder \S+ does not exist/)
    const folder = await bridle(['inspect', id, '--html', 'sessions'], app)
    expect(folder.code).toBe(2)
    expect(folder.stderr).toBe('bridle: --html sessions: that is a folder; name a file to write\n')
    expect(readdirSync(app)).toEqual(before)
  })

  it('view -p with a busy port: a usage error naming the port and what to do', async () => {
    busy = createServer()
    const port = await new Promise<number>((resolve) =>
      busy!.listen(0, '127.0.0.1', () => resolve((busy!.address() as { port: number }).port)),
    )
    const out = await bridle(['view', '-p', String(port)], app)
    expect(out.code).toBe(2)
    expect(out.stderr).toBe(
      `bridle: -p ${port}: the port is in use on 127.0.0.1 (another program listens there); pick another port, or leave out -p for a free one\n`,
    )
    expect(out.stdout).toBe('')
  })

  it('a missing -c file: a config error naming -c as typed, where it pointed and what is used without it', async () => {
    const out = await bridle(['-c', 'missing.yaml', 'sessions'], app)
    expect(out.code).toBe(2)
    expect(out.stderr).toBe(
      `bridle: -c missing.yaml: no such file: ${join(app, 'missing.yaml')} (-c names a bridle.yaml, relative to the current directory; without -c, ./bridle.yaml is used when present, else the built-in app)\n`,
    )
    const folder = await bridle(['-c', 'sessions', 'sessions'], app)
    expect(folder.code).toBe(2)
    expect(folder.stderr).toBe(
      `bridle: ${join(app, 'sessions')}: cannot read app config: it is a folder; -c names the bridle.yaml file itself\n`,
    )
    expect(existsSync(join(app, 'missing.yaml'))).toBe(false)
  })
})

describe('checks that come first', () => {
  it('inspect --follow on a backend that cannot follow fails before printing anything', async () => {
    const app = makeApp(DEMO_YAML)
    const id = sessionIdOf((await bridle(['run', 'hello'], app)).stderr)
    const out = await bridle(['inspect', id, '--follow'], app)
    expect(out.code).toBe(2)
    expect(out.stdout).toBe('')
    expect(out.stderr).toBe(
      'bridle: --follow needs a session backend that can follow a live session (such as @bridle/session-postgres); this app uses one that cannot, so nothing was shown (drop --follow to print the session once)\n',
    )
  })
})
