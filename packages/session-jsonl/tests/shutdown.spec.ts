/**
 * `shutdown(ctx)` (from `@bridle/scope`) resolves only after the backend wrote everything: a real process that appends
 * events, awaits it and calls `process.exit(0)` keeps every appended event on disk.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { SessionStore } from '@bridle/session'
import { Context } from 'cordis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { buildChild } from '../../../tests/support/build-child.js'
import { SessionJsonl } from '../src/index.js'
import { scriptedAppends } from './fixtures/script.js'

let bundle: string
const root = mkdtempSync(join(tmpdir(), 'bridle-jsonl-shutdown-'))
beforeAll(async () => {
  bundle = await buildChild(fileURLToPath(new URL('./shutdown/child.ts', import.meta.url)))
}, 120_000)
afterAll(() => rmSync(root, { recursive: true, force: true }))

it('a script that awaits shutdown(ctx) and then calls process.exit(0) keeps every appended event', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [bundle, root])
  const appended = scriptedAppends(3).length
  expect(stdout).toBe(`appended ${appended}\n`)
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(SessionJsonl, { root })
  const stored = await ctx.sessionPersistence!.inspect('shutdown')
  expect(stored?.events.length).toBe(appended)
  ctx.scope.dispose()
})
