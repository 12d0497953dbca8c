import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SCREENSHOTS, SOURCE_RECORD, viewerSourceDigest } from './screenshots.js'

// The README shows the viewer's pages; `pnpm --filter @bridle/view screenshots` retakes them in the browser test and records
// the digest of the viewer source they were taken from. Pixels differ between machines, so this compares the source.
describe("the README's screenshots", () => {
  it('were taken from the current viewer source', () => {
    for (const page of ['sessions', 'session', 'request'])
      expect(existsSync(join(SCREENSHOTS, `${page}.png`))).toBe(true)
    const recorded = readFileSync(SOURCE_RECORD, 'utf8').trim()
    expect(
      recorded,
      'the viewer (src/, tests/fixture.ts or tests/app.ts) changed since the README screenshots were taken: ' +
        'run `pnpm --filter @bridle/view screenshots` and commit docs/screenshots',
    ).toBe(viewerSourceDigest())
  })
})
