/**
 * The read commands (`sessions`, `inspect`, `inspect --html`, `view`) boot read-only: only the session backend of
 * bridle.yaml starts. A row whose plugin leaves a marker file when it starts (as an MCP row would launch its servers)
 * must leave none, over session-jsonl and session-postgres alike; `run` starting it is the control that the marker
 * works. Only a log written before section manifests needs the app's sections, and only then is the app started.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, inject, it } from 'vitest'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'
import { startView } from './view-server.js'

const PRE_MANIFEST = fileURLToPath(new URL('./fixtures/pre-manifest', import.meta.url))

/** A plugin that writes the file its config names when it is applied. */
const MARKER_PLUGIN = `import { writeFileSync } from 'node:fs'
export default {
  name: 'marker',
  apply(ctx, config) {
    writeFileSync(config.file, String(process.pid))
  },
}
`

/**
 * Adds the marker row and, unless `importable`, a row whose package does not exist: a read command must not even
 * import it.
 */
function withMarkerRows(yaml: string, app: string, { importable = false } = {}): string {
  mkdirSync(join(app, 'plugins'), { recursive: true })
  writeFileSync(join(app, 'plugins', 'marker.mjs'), MARKER_PLUGIN)
  const rows =
    `  - path: ./plugins/marker.mjs\n    config: { file: ${JSON.stringify(join(app, 'started'))} }\n` +
    (importable ? '' : '  - "@bridle/no-such-plugin"\n')
  return yaml.replace('plugins:\n', `plugins:\n${rows}`)
}

/** Runs every read command on session `id` and asserts each succeeded and nothing but the backend started. */
async function readEverything(app: string, id: string): Promise<void> {
  const marker = join(app, 'started')
  const listed = await bridle(['sessions', '--json'], app)
  expect(listed.code, listed.stderr).toBe(0)
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id })])
  for (const flags of [[], ['--step', '2', '--verify'], ['--cache'], ['--events', '--json']]) {
    const out = await bridle(['inspect', id, ...flags], app)
    expect(out.code, `inspect ${flags.join(' ')}: ${out.stderr}`).toBe(0)
    expect(out.stderr).toBe('')
  }
  const step = await bridle(['inspect', id, '--step', '2'], app)
  expect(step.stdout).toContain('names from the log')
  expect(step.stdout).toMatch(/^ {2}\d\. deployment:persona /m)
  const html = await bridle(['inspect', id, '--html', join(app, 'session.html')], app)
  expect(html.code, html.stderr).toBe(0)
  expect(existsSync(join(app, 'session.html'))).toBe(true)

  const view = await startView([], app)
  try {
    const sessions = (await (await fetch(`${view.url}api/sessions`)).json()) as { id: string }[]
    expect(sessions.map((s) => s.id)).toEqual([id])
    const session = await fetch(`${view.url}api/sessions/${encodeURIComponent(id)}`)
    expect(session.status).toBe(200)
  } finally {
    expect((await view.stop()).code).toBe(0)
  }
  expect(existsSync(marker)).toBe(false)

  // the control: a command that runs the agent starts every row (and the missing package fails it, after the marker)
  const run = await bridle(['run', '-s', id, 'And its version?'], app)
  expect(run.code).toBe(2)
  expect(run.stderr).toContain('plugin "@bridle/no-such-plugin": cannot import the package')
  expect(existsSync(marker)).toBe(true)
}

describe('read commands start only the session backend', () => {
  it('over session-jsonl: sessions, inspect, inspect --html and view start no other row', async () => {
    const app = makeApp(DEMO_YAML)
    const first = await bridle(['run', 'What is the package name of this project?'], app)
    expect(first.code, first.stderr).toBe(0)
    writeFileSync(join(app, 'bridle.yaml'), withMarkerRows(DEMO_YAML, app))
    await readEverything(app, sessionIdOf(first.stderr))
  })

  it('over session-postgres: the same, with the backend row and its config', async () => {
    const yaml = DEMO_YAML.replace(
      / {2}- package: "@bridle\/session-jsonl"\n {4}config:\n {6}root: sessions\n/,
      `  - package: "@bridle/session-postgres"\n    config:\n      connectionString: "${inject('pgUrl')}"\n` +
        `      schema: ro_${randomBytes(5).toString('hex')}\n      poolSize: 2\n`,
    )
    expect(yaml).toContain('session-postgres')
    const app = makeApp(yaml)
    const first = await bridle(['run', 'What is the package name of this project?'], app)
    expect(first.code, first.stderr).toBe(0)
    writeFileSync(join(app, 'bridle.yaml'), withMarkerRows(yaml, app))
    await readEverything(app, sessionIdOf(first.stderr))
    expect(existsSync(join(app, 'sessions'))).toBe(false)
  }, 180_000)

  it('a log written before section manifests starts the app only to name its sections', async () => {
    const app = mkdtempSync(join(tmpdir(), 'bridle-read-only-'))
    try {
      cpSync(PRE_MANIFEST, app, { recursive: true })
      const yaml = join(app, 'bridle.yaml')
      writeFileSync(yaml, withMarkerRows(readFileSync(yaml, 'utf8'), app, { importable: true }))
      const id = readdirSync(join(app, 'sessions'))[0]!.replace(/\.jsonl$/, '')
      const marker = join(app, 'started')
      const verified = await bridle(['inspect', id, '--verify'], app)
      expect(verified.code, verified.stderr).toBe(0)
      expect(existsSync(marker)).toBe(false)
      const step = await bridle(['inspect', id, '--step', '2.1'], app)
      expect(step.code, step.stderr).toBe(0)
      expect(step.stdout).toContain('names matched against the current app')
      expect(step.stdout).toMatch(/^ {2}2\. deployment:persona: You are running on model-b\.$/m)
      expect(existsSync(marker)).toBe(true)
    } finally {
      rmSync(app, { recursive: true, force: true })
    }
  })
})
