import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RequestView, SessionView } from '@bridle/view'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isLoopback } from '../src/commands/view.js'
import { bridle } from './helpers.js'
import { makeViewFixture, SCRIPT_PROMPT, type ViewFixture } from './view-fixture.js'
import { startView, type RunningView } from './view-server.js'

let fixture: ViewFixture
beforeAll(async () => {
  fixture = await makeViewFixture()
})

/** The JSON an --html file embeds. */
const embedded = (html: string) =>
  JSON.parse(/<script type="application\/json" id="bridle-data">(.*?)<\/script>/s.exec(html)![1]!)

describe('bridle inspect ID --html FILE', () => {
  it('writes one self-contained page: the bundle and the data inline, nothing loaded from anywhere', async () => {
    const file = join(fixture.app, 'session.html')
    const out = await bridle(['inspect', fixture.id, '--html', file], fixture.app)
    expect(out.code, out.stderr).toBe(0)
    expect(out.stderr).toMatch(
      new RegExp(`^bridle: wrote .*session\\.html \\(session ${fixture.id}, 3 requests, \\d+ KiB\\)$`, 'm'),
    )
    const html = readFileSync(file, 'utf8')
    expect(html).toContain("default-src 'none'")
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/)
    // the model-visible `<script>` survives only as escaped JSON; exactly two script elements exist
    expect(html.match(/<script/g)).toHaveLength(2)
    const data = embedded(html)
    expect(data.session.summary).toMatchObject({ id: fixture.id, turns: 2, verify: 'ok' })
    expect(Object.keys(data.requests)).toHaveLength(3)
    expect(JSON.stringify(data)).toContain(SCRIPT_PROMPT)
  })

  it('refuses other inspect flags with --html, and a missing session leaves no file behind', async () => {
    const both = await bridle(['inspect', fixture.id, '--html', 'x.html', '--verify'], fixture.app)
    expect(both.code).toBe(2)
    expect(both.stderr).toBe('bridle: --html writes the whole session; it cannot be combined with --verify\n')
    const before = readdirSync(fixture.app)
    const missing = await bridle(['inspect', 'nope', '--html', 'nope.html'], fixture.app)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('session "nope" not found')
    expect(readdirSync(fixture.app)).toEqual(before)
    expect(existsSync(join(fixture.app, 'nope.html'))).toBe(false)
  })
})

describe('bridle view', () => {
  let server: RunningView
  beforeAll(async () => {
    server = await startView([fixture.id], fixture.app)
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('prints a loopback URL on a free port, pointing at the session', () => {
    expect(server.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/#/session/${fixture.id}$`))
  })

  it('serves the page, the sessions newest first, a session and its request views over loopback', async () => {
    const base = new URL(server.url)
    const page = await fetch(new URL('/', base))
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(await page.text()).toContain('<script src="/assets/viewer.js"></script>')
    const script = await fetch(new URL('/assets/viewer.js', base))
    expect(script.status).toBe(200)

    const sessions = (await (await fetch(new URL('/api/sessions', base))).json()) as { id: string; verify: string }[]
    expect(sessions.map((s) => s.id)).toEqual([fixture.tampered, fixture.id])
    expect(sessions.map((s) => s.verify)).toEqual(['failed', 'ok'])

    const session = (await (await fetch(new URL(`/api/sessions/${fixture.id}`, base))).json()) as SessionView
    const seq = session.turns[1]!.steps[0]!.requests[0]!.seq
    const request = (await (
      await fetch(new URL(`/api/sessions/${fixture.id}/requests/${seq}`, base))
    ).json()) as RequestView
    expect(request.diff?.prefix.break?.cause).toMatch(/section \S*persona\S* changed/)

    const missing = await fetch(new URL('/api/sessions/nope', base))
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ error: 'session "nope" not found' })
  })

  it('stops cleanly on SIGTERM', async () => {
    const { code } = await server.stop()
    expect(code).toBe(0)
  })

  it('refuses a non-loopback host without --expose, and a bad port', async () => {
    const exposed = await bridle(['view', '--host', '0.0.0.0'], fixture.app)
    expect(exposed.code).toBe(2)
    expect(exposed.stderr).toMatch(/^bridle: --host 0\.0\.0\.0 is not a loopback address;.*Add --expose/)
    const port = await bridle(['view', '--port', 'eighty'], fixture.app)
    expect(port.code).toBe(2)
    expect(port.stderr).toBe('bridle: --port must be an integer from 0 to 65535, got "eighty"\n')
  })
})

describe('bridle view --host', () => {
  it('treats only loopback names and addresses as loopback', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(isLoopback(host), host).toBe(true)
    for (const host of ['0.0.0.0', '192.168.1.2', '::', 'example.com', '128.0.0.1'])
      expect(isLoopback(host), host).toBe(false)
  })
})
