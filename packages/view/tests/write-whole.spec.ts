import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { writeWhole, WriteWholeError } from '../src/index.js'

describe('writeWhole', () => {
  it('writes the file whole, replacing an older one, with no temporary file left beside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridle-write-'))
    const file = join(dir, 'out.html')
    writeFileSync(file, 'old')
    await writeWhole(file, 'new content')
    expect(readFileSync(file, 'utf8')).toBe('new content')
    expect(readdirSync(dir)).toEqual(['out.html'])
  })

  it('rejects with the file and the reason in words, never the temporary name, and leaves nothing behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridle-write-'))
    const missing = join(dir, 'nope', 'out.html')
    const error = await writeWhole(missing, 'x').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WriteWholeError)
    expect((error as WriteWholeError).code).toBe('ENOENT')
    expect((error as Error).message).toBe(`cannot write ${missing}: the folder ${join(dir, 'nope')} does not exist`)

    writeFileSync(join(dir, 'plain'), 'a file')
    const under = join(dir, 'plain', 'out.html')
    expect(((await writeWhole(under, 'x').catch((e: unknown) => e)) as Error).message).toBe(
      `cannot write ${under}: ${join(dir, 'plain')} is not a folder`,
    )
    // the destination is a folder: the temporary file was written, and is removed again
    const folder = join(dir, 'nope-dir')
    await writeWhole(join(dir, 'x.txt'), 'ok')
    mkdirSync(folder)
    const onFolder = (await writeWhole(folder, 'x').catch((e: unknown) => e)) as WriteWholeError
    expect(onFolder.message).toBe(`cannot write ${folder}: ${folder} is a folder`)
    expect(readdirSync(dir).sort()).toEqual(['nope-dir', 'plain', 'x.txt'])
  })
})
