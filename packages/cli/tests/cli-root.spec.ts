import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

describe('--root: reading sessions stored under another folder, without a bridle.yaml', () => {
  it('inspect (with --verify and --json) and sessions read the JSONL sessions under DIR', async () => {
    const app = makeApp(DEMO_YAML)
    const id = sessionIdOf((await bridle(['run', 'What is the package name of this project?'], app)).stderr)
    // elsewhere: a folder with no bridle.yaml and no sessions of its own
    const elsewhere = mkdtempSync(join(tmpdir(), 'bridle-elsewhere-'))
    const missing = await bridle(['inspect', id], elsewhere)
    expect(missing.code).toBe(1)
    const shown = await bridle(['inspect', id, '--root', join(app, 'sessions'), '--verify'], elsewhere)
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain(`session ${id}`)
    expect(shown.stdout).toContain('verification passed: 2 requests match their digests')
    const json = JSON.parse(
      (await bridle(['inspect', id, '--root', join(app, 'sessions'), '--json'], elsewhere)).stdout,
    )
    expect(json.id).toBe(id)
    const listed = await bridle(['sessions', '--json', '--root', join(app, 'sessions')], elsewhere)
    expect(JSON.parse(listed.stdout).map((row: { id: string }) => row.id)).toEqual([id])
    rmSync(elsewhere, { recursive: true })
  })

  it('refuses a --root that is not a directory (exit 2)', async () => {
    const app = makeApp(DEMO_YAML)
    const out = await bridle(['inspect', 'x', '--root', 'nope'], app)
    expect(out.code).toBe(2)
    expect(out.stderr).toBe(`bridle: --root: no such directory: ${join(app, 'nope')}\n`)
  })
})
