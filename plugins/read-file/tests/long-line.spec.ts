/**
 * `read_file` on very long lines: memory stays bounded by the page (a child with a capped heap reads a 48 MiB line),
 * only the bytes the page needs are read, and a line split across any number of chunks is cut and counted exactly.
 */
import { fileURLToPath } from 'node:url'
import type { FileHandle } from 'node:fs/promises'
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPage } from '../src/index.js'
import { pageOptions } from './harness.js'
import { buildChild } from '../../../tests/support/build-child.js'
import { runChild } from './long-line/run-child.js'

const MiB = 1024 * 1024
/** Heap the child may use: far below the line's size (48 MiB) and the old reader's need (a multiple of it). */
const HEAP_MB = 24

let dir: string
let bundle: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bridle-long-line-'))
  bundle = await buildChild(fileURLToPath(new URL('./long-line/child.ts', import.meta.url)))
}, 120_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A handle over generated content that counts the bytes it served (no disk, any size). */
function countingHandle(content: (position: number, length: number) => Uint8Array, size: number) {
  let position = 0
  const handle = {
    served: 0,
    async read(buffer: Buffer, offset: number, length: number) {
      const n = Math.min(length, size - position)
      if (n > 0) buffer.set(content(position, n), offset)
      position += n
      handle.served += n
      return { bytesRead: n, buffer }
    },
  }
  return handle
}

describe('readPage: long lines', () => {
  it(`reads a page of a 48 MiB single-line file with the heap capped at ${HEAP_MB} MB`, async () => {
    const length = 48 * MiB
    const file = join(dir, 'one-line.txt')
    await writeFile(file, Buffer.concat([Buffer.alloc(length, 'q'), Buffer.from('\nsecond\n')]))
    const run = await runChild(bundle, file, HEAP_MB)
    expect(run.stderr).toBe('')
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null })
    const result = JSON.parse(run.stdout) as { lines: number; first: string; last: string; heapUsed: number }
    expect(result.first).toBe(`     1\t${'q'.repeat(2000)}… [line truncated: ${length} characters]`)
    expect(result.last).toBe('[end of file: lines 1-2 of 2]')
    expect(result.lines).toBe(3)
  }, 120_000)

  it('stops reading once the page is complete: a huge line after the page is never read', async () => {
    const head = Buffer.from('first\n')
    const size = head.length + 256 * MiB
    const handle = countingHandle((position, length) => {
      const out = Buffer.alloc(length, 'z')
      if (position < head.length) head.copy(out, 0, position, Math.min(head.length, position + length))
      return out
    }, size)
    const page = await readPage(handle as unknown as FileHandle, pageOptions({ limit: 1 }))
    expect(page).toBe('     1\tfirst\n[showing lines 1-1; more lines follow; call read_file with offset=2 to continue]')
    expect(handle.served).toBeLessThanOrEqual(64 * 1024)
  })

  it('skips lines before the offset without keeping them: the page after a 64 MiB line is exact', async () => {
    const huge = 64 * MiB
    const tail = Buffer.from('\nafter\n')
    const handle = countingHandle((position, length) => {
      const out = Buffer.alloc(length, 'w')
      if (position + length > huge) tail.copy(out, Math.max(0, huge - position), Math.max(0, position - huge))
      return out
    }, huge + tail.length)
    expect(await readPage(handle as unknown as FileHandle, pageOptions({ offset: 2 }))).toBe(
      '     2\tafter\n[end of file: lines 2-2 of 2]',
    )
    expect(handle.served).toBe(huge + tail.length)
  }, 60_000)

  it('cuts and counts a line exactly wherever chunk boundaries and a CRLF fall (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 200_000 }),
        fc.boolean(),
        fc.integer({ min: 16, max: 70_000 }),
        async (length, crlf, maxLineLength) => {
          const line = 'ab'.repeat(Math.ceil(length / 2)).slice(0, length)
          const file = join(dir, 'prop-long.txt')
          await writeFile(file, `${line}${crlf ? '\r\n' : '\n'}next\n`)
          const page = await readPage(file, pageOptions({ maxLineLength, maxBytes: 16 * MiB }))
          const expected =
            line.length <= maxLineLength
              ? line
              : `${line.slice(0, maxLineLength)}… [line truncated: ${line.length} characters]`
          const lines = page.split('\n')
          expect(lines[0]).toBe(`     1\t${expected}`)
          expect(lines[1]).toBe('     2\tnext')
        },
      ),
      { seed: 1414, numRuns: 40 },
    )
  })

  it('keeps a CR that falls at the end of a 64 KiB chunk out of the text', async () => {
    const first = 'c'.repeat(64 * 1024 - 1)
    const file = join(dir, 'cr-boundary.txt')
    await writeFile(file, `${first}\r\nnext\r\n`)
    const page = await readPage(file, pageOptions({ maxLineLength: 100_000, maxBytes: 16 * MiB }))
    expect(page).toBe(`     1\t${first}\n     2\tnext\n[end of file: lines 1-2 of 2]`)
  })
})

describe('readPage on an open handle', () => {
  it('reads from a handle the caller opened and leaves it open', async () => {
    const file = join(dir, 'handle.txt')
    await writeFile(file, 'one\ntwo\n')
    const handle = await open(file, 'r')
    try {
      expect(await readPage(handle, pageOptions())).toBe('     1\tone\n     2\ttwo\n[end of file: lines 1-2 of 2]')
      expect((await handle.stat()).size).toBe(8)
    } finally {
      await handle.close()
    }
  })
})
