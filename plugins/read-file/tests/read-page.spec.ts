import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPage } from '../src/index.js'
import { pageOptions, refusal } from './harness.js'

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bridle-page-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function file(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, content)
  return path
}

describe('readPage', () => {
  it('numbers lines and notes the end of file', async () => {
    const f = await file('pkg.json', '{\n  "name": "demo"\n}\n')
    expect(await readPage(f, pageOptions())).toBe(
      '     1\t{\n     2\t  "name": "demo"\n     3\t}\n[end of file: lines 1-3 of 3]',
    )
  })

  it('handles CRLF and a missing final newline', async () => {
    const f = await file('crlf.txt', 'a\r\nb')
    expect(await readPage(f, pageOptions())).toBe('     1\ta\n     2\tb\n[end of file: lines 1-2 of 2]')
  })

  it('pages with offset and limit and says how to continue', async () => {
    const f = await file('ten.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n')
    expect(await readPage(f, pageOptions({ offset: 3, limit: 2 }))).toBe(
      '     3\tline 3\n     4\tline 4\n[showing lines 3-4; more lines follow; call read_file with offset=5 to continue]',
    )
    expect(await readPage(f, pageOptions({ offset: 9, limit: 2 }))).toBe(
      '     9\tline 9\n    10\tline 10\n[end of file: lines 9-10 of 10]',
    )
  })

  it('refuses an offset past the end', async () => {
    const f = await file('two.txt', 'a\nb\n')
    const e = await refusal(readPage(f, pageOptions({ offset: 5, displayPath: 'two.txt' })))
    expect(e.code).toBe('BAD_OFFSET')
    expect(e.message).toBe('offset 5 is past the end of "two.txt" (2 lines)')
  })

  it('says so for an empty file', async () => {
    const f = await file('empty.txt', '')
    expect(await readPage(f, pageOptions({ displayPath: 'empty.txt' }))).toBe(
      '(empty file: "empty.txt" has no content)',
    )
  })

  it('caps output bytes with a truncation note', async () => {
    const f = await file('big.txt', Array.from({ length: 1000 }, (_, i) => `row ${i + 1} ${'x'.repeat(40)}`).join('\n'))
    const text = await readPage(f, pageOptions({ maxBytes: 1024 }))
    const lines = text.split('\n')
    const note = lines.pop()!
    const body = lines.join('\n') + '\n'
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024)
    expect(note).toBe(
      `[output truncated: the 1024-byte cap was reached after line ${lines.length}; call read_file with offset=${lines.length + 1} to continue]`,
    )
    expect(lines.at(-1)).toMatch(new RegExp(`^\\s+${lines.length}\\trow ${lines.length} `))
  })

  it('cuts a single huge first line to the cap instead of returning nothing', async () => {
    const f = await file('one-long.txt', 'y'.repeat(5000))
    const text = await readPage(f, pageOptions({ maxBytes: 300, maxLineLength: 100_000 }))
    expect(text.split('\n')[0]!.length).toBeLessThanOrEqual(300)
    expect(text).toContain(
      '[output truncated: the 300-byte cap was reached after line 1; call read_file with offset=2 to continue]',
    )
  })

  it('cuts long lines with a marker', async () => {
    const f = await file('long.txt', 'z'.repeat(50) + '\n')
    expect(await readPage(f, pageOptions({ maxLineLength: 20 }))).toBe(
      `     1\t${'z'.repeat(20)}… [line truncated: 50 characters]\n[end of file: lines 1-1 of 1]`,
    )
  })

  it('refuses binary content: NUL bytes', async () => {
    const f = await file('img.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]))
    const e = await refusal(readPage(f, pageOptions({ displayPath: 'img.png' })))
    expect(e.code).toBe('BINARY_FILE')
    expect(e.message).toBe('"img.png" is a binary file (it contains NUL bytes); read_file only reads text')
  })

  it('refuses binary content: invalid UTF-8', async () => {
    const f = await file('latin1.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]))
    const e = await refusal(readPage(f, pageOptions({ displayPath: 'latin1.txt' })))
    expect(e.code).toBe('BINARY_FILE')
    expect(e.message).toContain('not valid UTF-8')
  })

  it('keeps multi-byte characters split across read chunks', async () => {
    const content = 'a'.repeat(64 * 1024 - 1) + 'é\nsecond\n'
    const f = await file('chunked.txt', content)
    const text = await readPage(f, pageOptions({ maxBytes: 16 * 1024 * 1024, maxLineLength: 1_000_000 }))
    expect(text).toContain('é\n     2\tsecond')
  })

  it('refuses a directory', async () => {
    await mkdir(join(dir, 'sub'), { recursive: true })
    const e = await refusal(readPage(join(dir, 'sub'), pageOptions({ displayPath: 'sub' })))
    expect(e.code).toBe('NOT_A_FILE')
    expect(e.message).toBe('"sub" is a directory, not a file')
  })

  it('stops on an aborted signal', async () => {
    const f = await file('abort.txt', 'a\n')
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(readPage(f, pageOptions({ signal: controller.signal }))).rejects.toThrow('stop')
  })

  it('property: paging through a file with any limit reproduces every line exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/[\r\n\0]/g, '')),
          { minLength: 1, maxLength: 40 },
        ),
        fc.integer({ min: 1, max: 7 }),
        async (lines, limit) => {
          const f = await file('prop.txt', lines.join('\n') + '\n')
          const seen: string[] = []
          let offset = 1
          for (;;) {
            const page = (await readPage(f, pageOptions({ offset, limit }))).split('\n')
            const note = page.pop()!
            for (const row of page) seen.push(row.slice(row.indexOf('\t') + 1))
            offset += page.length
            if (note.startsWith('[end of file')) break
            expect(note).toContain(`offset=${offset}`)
          }
          expect(seen).toEqual(lines)
        },
      ),
      { numRuns: 60 },
    )
  })
})
