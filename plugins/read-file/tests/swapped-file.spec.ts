/**
 * A file can change between read_file's checks and its open: here the regular file the model named is replaced by a
 * FIFO right after it was examined, as a process racing the tool would do. The read must still refuse it (and not
 * block on the FIFO): what is checked is the file that was actually opened.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, realpath, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

/** Paths whose next `stat` swaps the file for a FIFO right after examining it. */
const swapAfterStat = new Set<string>()

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>()
  return {
    ...real,
    stat: async (...args: Parameters<typeof real.stat>) => {
      const info = await real.stat(...args)
      const path = String(args[0])
      if (swapAfterStat.delete(path)) {
        await real.unlink(path)
        execFileSync('mkfifo', [path])
      }
      return info
    },
  }
})

const { readPage, ReadFileError } = await import('../src/index.js')

let dir: string
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'bridle-swap-')))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('a file swapped after it was checked', () => {
  it('a regular file replaced by a FIFO before the open is refused as not a regular file', async () => {
    const path = join(dir, 'notes.txt')
    await writeFile(path, 'hello\n')
    swapAfterStat.add(path)
    const error = await readPage(path, {
      offset: 1,
      limit: 10,
      maxBytes: 4096,
      maxLineLength: 100,
      displayPath: 'notes.txt',
    }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ReadFileError)
    expect((error as InstanceType<typeof ReadFileError>).code).toBe('NOT_A_FILE')
    expect((error as Error).message).toBe('"notes.txt" is not a regular file')
    await unlink(path)
  })
})
