/**
 * Redact first, cut after (issue 38): a line cut at `maxLineLength`, or a page cut at `maxBytes`, never leaves the
 * prefix of a credential the process holds — the session would store that prefix, and no filter could recognize it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { holdSecrets } from '@bridle/llm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPage } from '../src/index.js'
import { pageOptions } from './harness.js'

const KEY = 'sk-readfile-0a1b2c3d4e5f6a7b8c9d'
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bridle-read-secrets-'))
  holdSecrets(KEY)
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('a held key across a cut', () => {
  it('a long line cut at maxLineLength through the key shows [redacted], not its prefix', async () => {
    const path = join(dir, 'long.env')
    await writeFile(path, `TOKEN=${'x'.repeat(90)}${KEY}${'y'.repeat(500)}\n`)
    const page = await readPage(path, pageOptions({ maxLineLength: 100 }))
    expect(page).toContain(
      `TOKEN=${'x'.repeat(90)}[redacted]… [line truncated: ${6 + 90 + KEY.length + 500} characters]`,
    )
    expect(page).not.toContain(KEY.slice(0, 8))
  })

  it('a page cut at maxBytes through the key shows no prefix of it', async () => {
    const path = join(dir, 'wide.env')
    await writeFile(path, `${'z'.repeat(230)}${KEY}\n`)
    const page = await readPage(path, pageOptions({ maxBytes: 256, maxLineLength: 2000 }))
    expect(page).toContain(`${'z'.repeat(230)}[redacted]`)
    expect(page).not.toContain(KEY.slice(0, 8))
  })
})
