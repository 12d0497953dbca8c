import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  bridle,
  DEMO_YAML,
  makeApp,
  plainTerminalText,
  runCommand,
  sessionIdOf,
  spawnTty,
  Transcript,
} from './helpers.js'

const REPO = fileURLToPath(new URL('../../..', import.meta.url))
const QUESTION = 'What is the package name of this project?'

/** `pnpm ARGS` in the repository root. */
const pnpm = (args: string[]) => runCommand('pnpm', args, REPO, process.env)

describe('inspect text: timestamps, --full and the terminal width', () => {
  let app: string
  let id: string
  beforeAll(async () => {
    app = makeApp(DEMO_YAML)
    id = sessionIdOf((await bridle(['run', QUESTION], app)).stderr)
  })

  it("inspect and sessions show a session's creation time in the same form (YYYY-MM-DD HH:MM:SS, UTC)", async () => {
    const inspected = await bridle(['inspect', id], app)
    const created = /created (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC/.exec(inspected.stdout)?.[1]
    expect(created, inspected.stdout).toBeDefined()
    const listed = await bridle(['sessions'], app)
    const row = listed.stdout.split('\n').find((line) => line.startsWith(id))!
    expect(row.slice(id.length).trim().startsWith(created!)).toBe(true)
    const json = JSON.parse((await bridle(['inspect', id, '--json'], app)).stdout)
    expect(new Date(json.header.createdAt).toISOString().slice(0, 19).replace('T', ' ')).toBe(created)
  })

  it('--step cuts each section and message to one line; --full prints them whole, over their lines', async () => {
    const cut = await bridle(['inspect', id, '--step', '1'], app)
    const paths = cut.stdout.split('\n').find((line) => line.includes('workspace:paths'))!
    expect(paths.endsWith('…')).toBe(true)
    expect(cut.stdout).not.toContain('Binary files are refused')

    const full = await bridle(['inspect', id, '--step', '1', '--full'], app)
    expect(full.code, full.stderr).toBe(0)
    expect(full.stdout).toMatch(/workspace:paths \(order 50\): Workspace and paths:\n {8}- Paths you see/)
    expect(full.stdout).toContain('- Binary files are refused; do not retry them.')
    // the runtime-context snapshot message, whole: its cwd line is there
    expect(full.stdout).toMatch(/\(snapshot\) \(seq \d+\): Current runtime context\.[^\n]*\n\n {8}cwd: /)
    // nothing is cut but the abbreviated digests
    expect(full.stdout.split('\n').filter((line) => line.includes('…') && !line.includes('request/digest'))).toEqual([])
    const second = await bridle(['inspect', id, '--step', '2', '--full'], app)
    expect(second.stdout).toContain(
      '[reasoning: The package name is in the manifest, so I will read package.json first.]',
    )
    const overview = await bridle(['inspect', id, '--full'], app)
    expect(overview.stdout).toContain('answer: The package is named `acme-invoke-parser`'.replace('invoke', 'invoice'))
  })

  it('on a terminal, --step cuts lines to its width rather than at 90 characters', async () => {
    for (const columns of [60, 160]) {
      const tty = new Transcript(spawnTty(['inspect', id, '--step', '1'], app, undefined, { columns }))
      expect(await tty.closed).toBe(0)
      const lines = plainTerminalText(tty.text).split('\n')
      const paths = lines.find((line) => line.includes('workspace:paths'))!
      expect(paths.length, paths).toBe(columns)
      expect(paths.endsWith('…')).toBe(true)
    }
  })
})

describe('pnpm exec bridle in the repository', () => {
  it('runs the CLI as `pnpm bridle` does', async () => {
    const exec = await pnpm(['exec', 'bridle', '--version'])
    const script = await pnpm(['--silent', 'bridle', '--version'])
    expect(exec.code, exec.stderr).toBe(0)
    expect(exec.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
    expect(exec.stdout.trim()).toBe(script.stdout.trim())
  })
})
