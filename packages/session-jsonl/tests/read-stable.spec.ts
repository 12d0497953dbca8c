import { mkdtempSync, writeFileSync, appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { nodeFs, type FsLayer } from '../src/fs-layer.js'
import { readStable, revisionOf } from '../src/read-stable.js'

function file(text: string): { root: string; path: string } {
  const root = mkdtempSync(join(tmpdir(), 'bridle-read-'))
  const path = join(root, 'a.jsonl')
  writeFileSync(path, text)
  return { root, path }
}

describe('readStable', () => {
  it('retries until the stats before and after the read agree', async () => {
    const { root, path } = file('H\n')
    let reads = 0
    // A writer that appends while the first two reads are in progress.
    const racing: FsLayer = {
      ...nodeFs,
      async readFile(p) {
        const bytes = await nodeFs.readFile(p)
        if (++reads <= 2) appendFileSync(p, `A${reads}\n`)
        return bytes
      },
    }
    const result = await readStable(racing, root, path)
    expect(reads).toBe(3)
    expect(new TextDecoder().decode(result.bytes)).toBe('H\nA1\nA2\n')
    expect(result.revision).toBe(revisionOf(root, await nodeFs.stat(path)))
    const [kind, rootPart, dev, ino, size, mtimeNs, ctimeNs] = result.revision.split(':')
    expect([kind, rootPart, size]).toEqual(['jsonl', root, '8'])
    for (const part of [dev, ino, mtimeNs, ctimeNs]) expect(part).toMatch(/^\d+$/)
  })

  it('a signal aborts a read that never settles', async () => {
    const { root, path } = file('H\n')
    const controller = new AbortController()
    let reads = 0
    const endless: FsLayer = {
      ...nodeFs,
      async readFile(p) {
        const bytes = await nodeFs.readFile(p)
        appendFileSync(p, 'x\n')
        if (++reads === 5) controller.abort(new Error('stop reading'))
        return bytes
      },
    }
    await expect(readStable(endless, root, path, controller.signal)).rejects.toThrow('stop reading')
    expect(reads).toBe(5)
  })

  it('a missing file rejects with ENOENT', async () => {
    const { root } = file('')
    await expect(readStable(nodeFs, root, join(root, 'none.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' })
  })
})
