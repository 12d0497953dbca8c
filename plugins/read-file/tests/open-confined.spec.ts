/**
 * `openInWorkspace`: the descriptor check that makes confinement hold under races, its fallback where `/proc` is
 * missing, the trailing-slash rule, and that no descriptor stays open after a refusal.
 */
import { mkdir, mkdtemp, readdir, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { confineToWorkspace, openInWorkspace } from '../src/index.js'
import { openConfined } from '../src/open-confined.js'
import { agentAt, load, read, text, refusal } from './harness.js'

let base: string
let ws: string
let outside: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-open-confined-')))
  ws = join(base, 'ws')
  outside = join(base, 'outside')
  await mkdir(join(ws, 'd'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(ws, 'inside.txt'), 'inside\n')
  await writeFile(join(ws, 'd', 'f.txt'), 'in d\n')
  await writeFile(join(outside, 'f.txt'), 'TOP-SECRET\n')
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

/** Open descriptors of this process (Linux); `undefined` elsewhere. */
async function openDescriptors(): Promise<number | undefined> {
  return readdir('/proc/self/fd').then(
    (names) => names.length,
    () => undefined,
  )
}

describe('openInWorkspace', () => {
  it('opens a file inside and reports where the descriptor lies', async () => {
    const { handle, path } = await openInWorkspace(ws, 'd/f.txt')
    try {
      expect(path).toBe(join(ws, 'd', 'f.txt'))
      expect((await handle.readFile('utf8')).toString()).toBe('in d\n')
    } finally {
      await handle.close()
    }
  })

  it('refuses a descriptor the kernel places outside the workspace, and closes it', async () => {
    const before = await openDescriptors()
    // The lookup stands in for /proc/self/fd: it says the descriptor was opened outside (a swapped directory).
    const e = await refusal(openConfined(ws, 'd/f.txt', async () => join(outside, 'f.txt')))
    expect(e.code).toBe('OUTSIDE_WORKSPACE')
    expect(e.message).toBe(
      'path "d/f.txt" led outside the workspace while it was being opened (a symlink was swapped in); refused',
    )
    expect(await openDescriptors()).toBe(before)
  })

  it('accepts a file unlinked after it was opened (the kernel reports " (deleted)")', async () => {
    const { handle, path } = await openConfined(ws, 'inside.txt', async () => `${join(ws, 'inside.txt')} (deleted)`)
    await handle.close()
    expect(path).toBe(join(ws, 'inside.txt'))
  })

  it('without /proc, compares the descriptor with the checked path: a swap still in place is refused', async () => {
    const swapped = join(base, 'swap')
    await mkdir(join(swapped, 'd'), { recursive: true })
    await writeFile(join(swapped, 'd', 'f.txt'), 'inside\n')
    // The descriptor is opened on the real directory; then, before the check, the directory is replaced by a
    // symlink to the outside, so the checked path now names a different file.
    const e = await refusal(
      openConfined(swapped, 'd/f.txt', async () => {
        await rename(join(swapped, 'd'), join(swapped, 'd.real'))
        await symlink(outside, join(swapped, 'd'))
        return undefined
      }),
    )
    expect(e.code).toBe('OUTSIDE_WORKSPACE')
    const ok = await openConfined(ws, 'd/f.txt', async () => undefined)
    await ok.handle.close()
    expect(ok.path).toBe(join(ws, 'd', 'f.txt'))
  })

  it('refuses directories and special files without reading them', async () => {
    expect((await refusal(openInWorkspace(ws, 'd'))).message).toBe('"d" is a directory, not a file')
    expect((await refusal(openInWorkspace(ws, 'd/'))).message).toBe('"d/" is a directory, not a file')
  })
})

describe('a trailing slash names a directory', () => {
  it('refuses "inside.txt/" and "inside.txt/." instead of reading the file', async () => {
    for (const path of ['inside.txt/', 'inside.txt/.']) {
      const e = await refusal(confineToWorkspace(ws, path))
      expect(e.code).toBe('NOT_A_FILE')
      expect(e.message).toBe(`path "${path}" ends with "/", which names a directory, but "inside.txt" is not one`)
    }
  })

  it('through the tool, the model gets the refusal as an error result', async () => {
    const { root } = load()
    const r = await read(root, { path: 'inside.txt/' }, agentAt(ws))
    expect(r.isError).toBe(true)
    expect(r.error?.info).toEqual({ name: 'ReadFileError', code: 'NOT_A_FILE' })
    expect(text(r)).toBe(
      'Error: path "inside.txt/" ends with "/", which names a directory, but "inside.txt" is not one',
    )
    expect(text(await read(root, { path: 'inside.txt' }, agentAt(ws)))).toContain('\tinside')
  })
})
