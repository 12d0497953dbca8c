/**
 * read_file on the files a workspace really holds: CRLF text, lines of exactly the cut length, a first line larger
 * than the byte cap, multi-byte characters across the 64 KiB read chunks, files without a final newline, FIFOs,
 * truncated UTF-8 at the end, a missing workspace root and one reached through a symlink. Every read closes its file.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readlinkSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentAt, load, read, text } from './harness.js'

let base: string
let ws: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-read-edges-')))
  ws = join(base, 'project')
  await mkdir(join(ws, 'src'), { recursive: true })
  await writeFile(join(ws, 'crlf.txt'), 'first line\r\nsecond\r\n\r\nfourth has a \r inside\r\n')
  await writeFile(join(ws, 'no-final-newline.txt'), 'a\nb\nc')
  await writeFile(join(ws, 'exact.txt'), `${'x'.repeat(16)}\n${'y'.repeat(17)}\n`)
  await writeFile(join(ws, 'truncated-utf8.txt'), new Uint8Array([0x6f, 0x6b, 0x0a, 0xe2, 0x82]))
  await writeFile(join(ws, 'nul.bin'), new Uint8Array([0x61, 0x00, 0x62]))
  // a three-byte character straddles the first 64 KiB read chunk, and a one-line page is complete before it
  await writeFile(join(ws, 'straddle.txt'), `first\nsecond\n${'a'.repeat(64 * 1024 - 14)}✓ tail\nlast\n`)
  execFileSync('mkfifo', [join(ws, 'pipe')])
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

const tool = (config: Record<string, unknown> = {}) => load({ root: ws, ...config }).root

describe('line endings and line lengths', () => {
  it('CRLF lines lose only their final \\r; a \\r inside a line stays', async () => {
    const out = text(await read(tool(), { path: 'crlf.txt' }))
    expect(out.split('\n')).toEqual([
      '     1\tfirst line',
      '     2\tsecond',
      '     3\t',
      '     4\tfourth has a \r inside',
      '[end of file: lines 1-4 of 4]',
    ])
  })

  it('a line of exactly maxLineLength characters is kept whole; one more is cut with a marker', async () => {
    const out = text(await read(tool({ maxLineLength: 16 }), { path: 'exact.txt' }))
    expect(out.split('\n').slice(0, 2)).toEqual([
      `     1\t${'x'.repeat(16)}`,
      `     2\t${'y'.repeat(16)}… [line truncated: 17 characters]`,
    ])
  })

  it('a file without a final newline: its last line counts, and a page before it says more lines follow', async () => {
    expect(text(await read(tool(), { path: 'no-final-newline.txt' }))).toBe(
      '     1\ta\n     2\tb\n     3\tc\n[end of file: lines 1-3 of 3]',
    )
    expect(text(await read(tool(), { path: 'no-final-newline.txt', limit: 2 }))).toBe(
      '     1\ta\n     2\tb\n[showing lines 1-2; more lines follow; call read_file with offset=3 to continue]',
    )
  })
})

describe('the byte cap', () => {
  it('a first line larger than the cap is cut at a character boundary, keeping a genuine U+FFFD', async () => {
    await writeFile(join(ws, 'wide.txt'), `\uFFFD${'✓'.repeat(200)}\nsecond\n`)
    const out = text(await read(tool({ maxBytes: 256 }), { path: 'wide.txt' }))
    const [first, note] = out.split('\n')
    // 255 bytes are free for the line: 7 for the number and tab, 3 for U+FFFD, then 81 whole three-byte characters
    expect(first).toBe(`     1\t\uFFFD${'✓'.repeat(81)}`)
    expect(note).toBe(
      '[output truncated: the 256-byte cap was reached after line 1; call read_file with offset=2 to continue]',
    )
  })

  it('lines that fill the cap exactly are all returned', async () => {
    // each numbered line is 7 + 56 bytes plus its newline: four of them are exactly 256 bytes
    await writeFile(join(ws, 'fill.txt'), `${'z'.repeat(56)}\n`.repeat(5))
    const lines = text(await read(tool({ maxBytes: 256 }), { path: 'fill.txt' })).split('\n')
    expect(lines).toHaveLength(5)
    expect(lines[3]).toBe(`     4\t${'z'.repeat(56)}`)
    expect(lines[4]).toContain('after line 4; call read_file with offset=5')
  })
})

describe('UTF-8 across chunks and at the end of the file', () => {
  it('a page that ends while a character is split across read chunks is text, not binary', async () => {
    expect(text(await read(tool(), { path: 'straddle.txt', limit: 1 }))).toBe(
      '     1\tfirst\n[showing lines 1-1; more lines follow; call read_file with offset=2 to continue]',
    )
    const second = text(
      await read(tool({ maxLineLength: 1_000_000, maxBytes: 1024 * 1024 }), { path: 'straddle.txt', offset: 3 }),
    )
    expect(second.split('\n')[0]!.endsWith('a✓ tail')).toBe(true)
  })

  it('a file ending in a truncated UTF-8 sequence is refused as binary', async () => {
    const result = await read(tool(), { path: 'truncated-utf8.txt' })
    expect(result.isError).toBe(true)
    expect(text(result)).toBe(
      'Error: "truncated-utf8.txt" is a binary file (it is not valid UTF-8 text); read_file only reads text',
    )
  })
})

describe('what is not a regular file', () => {
  it('a FIFO is refused at once (no read blocks on it)', async () => {
    const result = await read(tool(), { path: 'pipe' })
    expect(result.isError).toBe(true)
    expect(text(result)).toBe('Error: "pipe" is not a regular file')
  })

  it('a path that continues below a file is not found', async () => {
    const result = await read(tool(), { path: 'crlf.txt/child' })
    expect(text(result)).toBe(
      `Error: file not found: "crlf.txt/child" (paths are relative to the workspace root ${ws})`,
    )
  })
})

describe('the workspace root', () => {
  it('a missing root: a path inside it is not found (naming the root), a path outside is still refused', async () => {
    const missing = join(base, 'not-created')
    const inside = await read(tool({ root: missing }), { path: 'a.txt' })
    expect(text(inside)).toBe(`Error: the workspace root ${missing} does not exist or cannot be read`)
    const outside = await read(tool({ root: missing }), { path: join(ws, 'crlf.txt') })
    expect(text(outside)).toBe(
      `Error: path "${join(ws, 'crlf.txt')}" is outside the workspace (${missing}); only files inside it can be read`,
    )
  })

  it('a root reached through a symlink does not let a relative path climb to the real location', async () => {
    const link = join(base, 'linked-project')
    await symlink(ws, link)
    const ok = await read(tool({ root: link }), { path: 'no-final-newline.txt' })
    expect(text(ok)).toContain('[end of file: lines 1-3 of 3]')
    const climbed = await read(tool({ root: link }), { path: '../project/crlf.txt' })
    expect(climbed.isError).toBe(true)
    expect(text(climbed)).toBe(
      `Error: path "../project/crlf.txt" is outside the workspace (${link}); only files inside it can be read`,
    )
  })

  it('an agent whose session has no header reads from the process working directory', async () => {
    const root = load().root
    const result = await read(root, { path: 'package.json' }, { session: { id: 's-no-header' } } as never)
    expect(text(result)).toContain('"name"')
    const viaCwd = await read(root, { path: 'package.json' }, agentAt(process.cwd()))
    expect(text(result)).toBe(text(viaCwd))
  })

  it('a NUL byte in the path is refused and shown escaped', async () => {
    const result = await read(tool(), { path: 'a\0b' })
    expect(text(result)).toBe('Error: path "a\\0b" contains a NUL byte')
  })
})

describe('file handles', () => {
  it('every read closes its file, whether it succeeds or fails', async () => {
    const root = tool()
    // the descriptors of this process open on a file of the workspace, by target (one leaked read would show)
    const openInWorkspace = () =>
      readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          const target = readlinkSync(`/proc/self/fd/${fd}`)
          return target.startsWith(`${ws}/`) ? [target] : []
        } catch {
          return [] // the descriptor readdirSync itself used, closed since
        }
      })
    expect(openInWorkspace()).toEqual([])
    for (let i = 0; i < 25; i++) {
      await read(root, { path: 'crlf.txt' })
      await read(root, { path: 'no-final-newline.txt', limit: 1 })
      await read(root, { path: 'nul.bin' })
      await read(root, { path: 'truncated-utf8.txt' })
      await read(root, { path: 'crlf.txt', offset: 99 })
    }
    expect(openInWorkspace()).toEqual([])
  })
})
