/**
 * What each refusal tells the user, and what it leaves behind: sockets and directories named by code, the system
 * error kept as the cause (a symlink loop, a missing file or root, a name too long), binary refusals with and without
 * an underlying error, trailing slashes on absolute and nested paths, and `readPage(path)` closing its file on every
 * outcome.
 */
import { readdirSync, readlinkSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { confineToWorkspace, readPage, type ReadFileError, type PageOptions } from '../src/index.js'
import { load, read, text, pageOptions, refusal } from './harness.js'

let base: string
let ws: string
let server: Server

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-refusals-')))
  ws = join(base, 'ws')
  await mkdir(join(ws, 'd'), { recursive: true })
  await writeFile(join(ws, 'notes.txt'), 'one\ntwo\nthree\n')
  await writeFile(join(ws, 'd', 'f.txt'), 'in d\n')
  await writeFile(join(ws, 'nul.bin'), new Uint8Array([0x61, 0x00, 0x62]))
  await writeFile(join(ws, 'latin1.txt'), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]))
  await symlink(join(ws, 'loop-b'), join(ws, 'loop-a'))
  await symlink(join(ws, 'loop-a'), join(ws, 'loop-b'))
  // a Unix socket, as a running service leaves in a project (a dev server, a database): open(2) on it fails
  server = createServer()
  await new Promise<void>((done) => server.listen(join(ws, 'app.sock'), done))
})
afterAll(async () => {
  await new Promise((done) => server.close(done))
  await rm(base, { recursive: true, force: true })
})

const errno = (e: ReadFileError) => (e.cause as NodeJS.ErrnoException | undefined)?.code

describe('what is not a regular file is refused by kind, with NOT_A_FILE', () => {
  it('a Unix socket, through the tool and through readPage(path)', async () => {
    const { root } = load({ root: ws })
    const r = await read(root, { path: 'app.sock' })
    expect(text(r)).toBe('Error: "app.sock" is not a regular file')
    expect(r.error?.info).toEqual({ name: 'ReadFileError', code: 'NOT_A_FILE' })
    const e = await refusal(readPage(join(ws, 'app.sock'), pageOptions({ displayPath: 'app.sock' })))
    expect(e.code).toBe('NOT_A_FILE')
    expect(e.message).toBe('"app.sock" is not a regular file')
  })

  it('a directory', async () => {
    const { root } = load({ root: ws })
    const r = await read(root, { path: 'd' })
    expect(text(r)).toBe('Error: "d" is a directory, not a file')
    expect(r.error?.info).toEqual({ name: 'ReadFileError', code: 'NOT_A_FILE' })
  })
})

describe('refusals keep the system error that caused them', () => {
  it('a symlink loop is named as one, with ELOOP as the cause', async () => {
    const e = await refusal(confineToWorkspace(ws, 'loop-a'))
    expect(e.code).toBe('UNREADABLE')
    expect(e.message).toBe('path "loop-a" is a symlink loop')
    expect(errno(e)).toBe('ELOOP')
  })

  it('a missing file is NOT_FOUND with ENOENT as the cause', async () => {
    const e = await refusal(confineToWorkspace(ws, 'missing.txt'))
    expect(e.code).toBe('NOT_FOUND')
    expect(errno(e)).toBe('ENOENT')
  })

  it('a name longer than the system allows is UNREADABLE with the system’s reason', async () => {
    const name = 'n'.repeat(300)
    const e = await refusal(confineToWorkspace(ws, name))
    expect(e.code).toBe('UNREADABLE')
    expect(e.message).toMatch(new RegExp(`^cannot resolve "${name}": ENAMETOOLONG: name too long`))
    expect(errno(e)).toBe('ENAMETOOLONG')
    const r = await read(load({ root: ws }).root, { path: name })
    expect(r.error?.info).toEqual({ name: 'ReadFileError', code: 'UNREADABLE' })
  })

  it('a missing workspace root is NOT_FOUND, with the failed lookup of the root as the cause', async () => {
    const missing = join(base, 'never-created')
    const e = await refusal(confineToWorkspace(missing, 'a.txt'))
    expect(e.code).toBe('NOT_FOUND')
    expect(e.message).toBe(`the workspace root ${missing} does not exist or cannot be read`)
    expect(errno(e)).toBe('ENOENT')
    expect((e.cause as Error).message).toContain(missing)
  })

  it('invalid UTF-8 keeps the decoder’s error; a NUL byte has nothing underneath and shows no cause', async () => {
    const utf8 = await refusal(readPage(join(ws, 'latin1.txt'), pageOptions({ displayPath: 'latin1.txt' })))
    expect(utf8.code).toBe('BINARY_FILE')
    expect(utf8.cause).toBeInstanceOf(TypeError)
    expect(inspect(utf8)).toContain('[cause]: TypeError')
    const nul = await refusal(readPage(join(ws, 'nul.bin'), pageOptions({ displayPath: 'nul.bin' })))
    expect(nul.code).toBe('BINARY_FILE')
    expect(inspect(nul)).not.toContain('[cause]')
  })
})

describe('a trailing slash names a directory, however the path is spelled', () => {
  it('an absolute path to a file with a trailing slash is refused', async () => {
    const path = `${join(ws, 'notes.txt')}/`
    const e = await refusal(confineToWorkspace(ws, path))
    expect(e.code).toBe('NOT_A_FILE')
    expect(e.message).toBe(
      `path "${path}" ends with "/", which names a directory, but "${join(ws, 'notes.txt')}" is not one`,
    )
    expect(await confineToWorkspace(ws, `${join(ws, 'd')}/`)).toBe(join(ws, 'd'))
  })

  it('a nested path names the file without its slash in the message', async () => {
    const e = await refusal(confineToWorkspace(ws, 'd/f.txt/'))
    expect(e.message).toBe('path "d/f.txt/" ends with "/", which names a directory, but "d/f.txt" is not one')
  })
})

describe('readPage(path) closes the file it opened', () => {
  /** Descriptors of this process that refer to `path` now (Linux: the kernel's own list). */
  const descriptorsOn = (path: string) =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === path
      } catch {
        return false // the directory listing's own descriptor, already closed
      }
    }).length

  it('on success, on a full page, and on every refusal', async () => {
    const notes = join(ws, 'notes.txt')
    const outcomes: [string, PageOptions][] = [
      [notes, pageOptions()],
      [notes, pageOptions({ limit: 1 })],
      [notes, pageOptions({ offset: 99 })],
      [notes, pageOptions({ signal: AbortSignal.abort(new Error('stop')) })],
      [join(ws, 'nul.bin'), pageOptions()],
      [join(ws, 'latin1.txt'), pageOptions()],
    ]
    for (const [path, options] of outcomes) {
      await readPage(path, options).catch(() => undefined)
      // checked at once, so a handle left to the garbage collector still counts as left open
      expect({ path, options, open: descriptorsOn(path) }).toEqual({ path, options, open: 0 })
    }
  })
})
