/**
 * `openInWorkspace` while another process changes the workspace under it, at each moment in turn: between resolving
 * the path and examining it, between examining it and opening it, and right after the open. Each change is made for
 * real (a file deleted, replaced by a FIFO, a directory, a symlink or a socket) by a hook on `node:fs/promises` that
 * runs once, right after the named call returns for the named path. Every refusal says what happened, and no
 * descriptor stays open. Also: systems where `/proc/self/fd` cannot be read fall back to comparing inodes.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readlinkSync, type Stats } from 'node:fs'
import { mkdir, mkdtemp, realpath, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'

type Moment = 'realpath' | 'stat' | 'open'
/** One-shot changes, per moment and path; a `stat` hook may also replace the stats it returns. */
const hooks: Record<Moment, Map<string, (result: unknown) => Promise<unknown> | unknown>> = {
  realpath: new Map(),
  stat: new Map(),
  open: new Map(),
}
/** When set, reading `/proc/self/fd/<n>` fails with this error (a system without a readable /proc). */
let procFailure: NodeJS.ErrnoException | undefined

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>()
  const after = async <T>(moment: Moment, path: unknown, result: T): Promise<T> => {
    const hook = hooks[moment].get(String(path))
    if (hook === undefined) return result
    hooks[moment].delete(String(path))
    const replaced = await hook(result)
    return (replaced ?? result) as T
  }
  return {
    ...real,
    realpath: async (...args: Parameters<typeof real.realpath>) =>
      after('realpath', args[0], await real.realpath(...args)),
    stat: async (...args: Parameters<typeof real.stat>) => after('stat', args[0], await real.stat(...args)),
    open: async (...args: Parameters<typeof real.open>) => after('open', args[0], await real.open(...args)),
    readlink: async (...args: Parameters<typeof real.readlink>) => {
      if (procFailure !== undefined && String(args[0]).startsWith('/proc/self/fd/')) throw procFailure
      return real.readlink(...args)
    },
  }
})

const { openInWorkspace, ReadFileError } = await import('../src/index.js')
const { openConfined } = await import('../src/open-confined.js')
const { load, read, text } = await import('./harness.js')

let base: string
let ws: string
let servers: Server[] = []

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-open-races-')))
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})
beforeEach(async () => {
  ws = await mkdtemp(join(base, 'ws-'))
  await mkdir(join(ws, 'd'))
  await writeFile(join(ws, 'd', 'f.txt'), 'in d\n')
})
afterEach(async () => {
  // a hook left over means the change it describes never happened: the test proved nothing
  const unused = Object.entries(hooks).flatMap(([moment, paths]) =>
    [...paths.keys()].map((path) => `${moment} ${path}`),
  )
  for (const moment of Object.values(hooks)) moment.clear()
  procFailure = undefined
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))))
  servers = []
  expect(unused).toEqual([])
})

const target = () => join(ws, 'd', 'f.txt')
/** The descriptors this process has open now (Linux), without the one the listing itself used. */
const descriptors = () =>
  new Set(
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        readlinkSync(`/proc/self/fd/${fd}`)
        return true
      } catch {
        return false // the listing's own descriptor, closed by now (the next open may reuse its number)
      }
    }),
  )
/** Descriptors open now that were not open at `before` (one the garbage collector closed meanwhile is no concern). */
const openedSince = (before: Set<string>) => [...descriptors()].filter((fd) => !before.has(fd))

/** Runs `openInWorkspace(ws, 'd/f.txt')`, expecting a refusal and no descriptor left open. */
async function refused(open: () => Promise<unknown> = () => openInWorkspace(ws, 'd/f.txt')) {
  const before = descriptors()
  const e = await open().then(
    () => undefined,
    (x: unknown) => x,
  )
  expect(openedSince(before)).toEqual([])
  expect(e).toBeInstanceOf(ReadFileError)
  return e as InstanceType<typeof ReadFileError> & { cause?: NodeJS.ErrnoException }
}

describe('the file changes after it was examined, before it is opened', () => {
  it('replaced by a FIFO: refused as not a regular file, without blocking', async () => {
    hooks.stat.set(target(), async () => {
      await unlink(target())
      execFileSync('mkfifo', [target()])
    })
    const e = await refused()
    expect([e.code, e.message]).toEqual(['NOT_A_FILE', '"d/f.txt" is not a regular file'])
  })

  it('replaced by a directory: refused as a directory', async () => {
    hooks.stat.set(target(), async () => {
      await unlink(target())
      await mkdir(target())
    })
    const e = await refused()
    expect([e.code, e.message]).toEqual(['NOT_A_FILE', '"d/f.txt" is a directory, not a file'])
  })

  it('replaced by a symlink: refused as an escape (the open does not follow it)', async () => {
    await writeFile(join(base, 'secret.txt'), 'TOP-SECRET\n')
    hooks.stat.set(target(), async () => {
      await unlink(target())
      await symlink(join(base, 'secret.txt'), target())
    })
    const e = await refused()
    expect(e.code).toBe('OUTSIDE_WORKSPACE')
    expect(e.message).toBe(
      'path "d/f.txt" led outside the workspace while it was being opened (a symlink was swapped in); refused',
    )
  })

  it('deleted: not found, saying it disappeared, with ENOENT as the cause', async () => {
    hooks.stat.set(target(), () => unlink(target()))
    const e = await refused()
    expect([e.code, e.message]).toEqual(['NOT_FOUND', 'file not found: "d/f.txt" (it disappeared while being opened)'])
    expect(e.cause?.code).toBe('ENOENT')
  })

  it('its directory replaced by a file: not found, with ENOTDIR as the cause', async () => {
    hooks.stat.set(target(), async () => {
      await rename(join(ws, 'd'), join(ws, 'd.old'))
      await writeFile(join(ws, 'd'), 'now a file\n')
    })
    const e = await refused()
    expect([e.code, e.message]).toEqual(['NOT_FOUND', 'file not found: "d/f.txt" (it disappeared while being opened)'])
    expect(e.cause?.code).toBe('ENOTDIR')
  })

  it('replaced by a socket: unreadable, with the system’s reason', async () => {
    hooks.stat.set(target(), async () => {
      await unlink(target())
      const server = createServer()
      servers.push(server)
      await new Promise<void>((done) => server.listen(target(), done))
    })
    const e = await openInWorkspace(ws, 'd/f.txt').then(
      () => undefined,
      (x: unknown) => x as InstanceType<typeof ReadFileError> & { cause?: NodeJS.ErrnoException },
    )
    expect(e).toBeInstanceOf(ReadFileError)
    expect(e!.code).toBe('UNREADABLE')
    expect(e!.message).toMatch(/^cannot open "d\/f\.txt": ENXIO: no such device or address/)
    expect(e!.cause?.code).toBe('ENXIO')
  })
})

describe('the file changes after its path was resolved, before it is examined', () => {
  it('deleted: not found, saying it disappeared', async () => {
    hooks.realpath.set(target(), () => unlink(target()))
    const e = await refused()
    expect([e.code, e.message]).toEqual(['NOT_FOUND', 'file not found: "d/f.txt" (it disappeared while being opened)'])
    expect(e.cause?.code).toBe('ENOENT')
  })

  it('its directory replaced by a file: not found, with ENOTDIR as the cause', async () => {
    hooks.realpath.set(target(), async () => {
      await rename(join(ws, 'd'), join(ws, 'd.old'))
      await writeFile(join(ws, 'd'), 'now a file\n')
    })
    const e = await refused()
    expect(e.code).toBe('NOT_FOUND')
    expect(e.cause?.code).toBe('ENOTDIR')
  })

  it('replaced by a symlink loop: unreadable, with the system’s reason', async () => {
    hooks.realpath.set(target(), async () => {
      await unlink(target())
      await symlink(target(), target())
    })
    const e = await refused()
    expect(e.code).toBe('UNREADABLE')
    expect(e.message).toMatch(/^cannot read "d\/f\.txt": ELOOP: too many symbolic links/)
    expect(e.cause?.code).toBe('ELOOP')
  })

  it('a directory named with a trailing slash that vanishes is still not read as a file', async () => {
    hooks.realpath.set(join(ws, 'd'), () => rm(join(ws, 'd'), { recursive: true }))
    const e = await refused(() => openInWorkspace(ws, 'd/'))
    expect(e.code).toBe('NOT_A_FILE')
    expect(e.message).toBe('path "d/" ends with "/", which names a directory, but "d" is not one')
  })
})

describe('the file changes right after it was opened', () => {
  it('deleted: on Linux the kernel still places the descriptor in the workspace, and the file is read', async () => {
    hooks.open.set(target(), () => unlink(target()))
    const r = await read(load({ root: ws }).root, { path: 'd/f.txt' })
    expect(text(r)).toBe('     1\tin d\n[end of file: lines 1-1 of 1]')
  })

  it('deleted, without /proc: where the path leads can no longer be proven, so it is refused', async () => {
    hooks.open.set(target(), () => unlink(target()))
    const e = await refused(() => openConfined(ws, 'd/f.txt', async () => undefined))
    expect(e.code).toBe('OUTSIDE_WORKSPACE')
  })

  it('without /proc: a file with the same inode number on another device is not the opened file', async () => {
    // Inode numbers are per file system: the path must lead to the same device and inode as the descriptor.
    hooks.open.set(target(), () => {
      hooks.stat.set(target(), (info) =>
        Object.assign(Object.create(Object.getPrototypeOf(info)), info, {
          dev: (info as Stats).dev + 1,
        }),
      )
    })
    const e = await refused(() => openConfined(ws, 'd/f.txt', async () => undefined))
    expect(e.code).toBe('OUTSIDE_WORKSPACE')
  })
})

describe('where /proc/self/fd cannot be read', () => {
  const failure = (code: string) => Object.assign(new Error(`${code}: /proc/self/fd unavailable`), { code })

  for (const code of ['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM']) {
    it(`${code} (no /proc, or not allowed): the inode comparison decides, and a file inside is read`, async () => {
      procFailure = failure(code)
      const r = await read(load({ root: ws }).root, { path: 'd/f.txt' })
      expect(text(r)).toBe('     1\tin d\n[end of file: lines 1-1 of 1]')
    })
  }

  it('any other failure is not taken for a missing /proc: it is reported, and the file is closed', async () => {
    procFailure = failure('EIO')
    const before = descriptors()
    await expect(openInWorkspace(ws, 'd/f.txt')).rejects.toBe(procFailure)
    expect(openedSince(before)).toEqual([])
  })
})
