/**
 * `shutdown(ctx)` (from `@bridle/scope`) resolves only after the backend wrote everything and gave its lease back: a
 * real process that appends events, awaits it and calls `process.exit(0)` keeps every appended event in the database.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { scriptedAppends } from '@bridle/persistence-conformance/script'
import { beforeAll, expect, it } from 'vitest'
import { buildChild } from '../../../../tests/support/build-child.js'
import { freshSchema, makeApp, pgUrl } from '../helpers.js'

let bundle: string
beforeAll(async () => {
  bundle = await buildChild(fileURLToPath(new URL('./shutdown-child.ts', import.meta.url)))
}, 120_000)

it('a script that awaits shutdown(ctx) and then calls process.exit(0) keeps every appended event', async () => {
  const schema = freshSchema()
  const { stdout } = await promisify(execFile)(process.execPath, [bundle, pgUrl, schema])
  const appended = scriptedAppends(3).length
  expect(stdout).toBe(`appended ${appended}\n`)
  const app = makeApp({}, schema)
  const stored = await app.persistence.inspect('shutdown')
  expect(stored?.events.length).toBe(appended)
  // the lease was given back: another process may take the session over at once
  const resumed = await app.persistence.resume('shutdown')
  expect(resumed.id).toBe('shutdown')
})
