import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { appendFile, isRollbackFailure, publishFile, repairFile } from '../src/file-writer.js'
import { nodeFs } from '../src/fs-layer.js'
import { FaultyFs } from './fixtures/faulty-fs.js'

const enc = new TextEncoder()
let dir: string
let root: string
let path: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-writer-'))
  root = join(dir, 'nested', 'sessions')
  path = join(root, 's1.jsonl')
})

describe('publishFile', () => {
  it('creates the root, publishes atomically and leaves no temp file', async () => {
    await publishFile(nodeFs, root, path, 's1', enc.encode('H\nA\n'))
    expect(readFileSync(path, 'utf8')).toBe('H\nA\n')
    expect(readdirSync(root)).toEqual(['s1.jsonl'])
  })

  it('refuses to clobber an existing log', async () => {
    await publishFile(nodeFs, root, path, 's1', enc.encode('H\n'))
    await expect(publishFile(nodeFs, root, path, 's1', enc.encode('X\n'))).rejects.toThrow(
      'refusing to materialize "s1": a log already exists on disk (load/resume it instead)',
    )
    expect(readFileSync(path, 'utf8')).toBe('H\n')
  })

  it('a link that loses the race to another publisher refuses too (EEXIST)', async () => {
    const racing = {
      ...nodeFs,
      link: async (a: string, b: string) => {
        writeFileSync(b, 'OTHER\n')
        return nodeFs.link(a, b)
      },
    }
    await expect(publishFile(racing, root, path, 's1', enc.encode('H\n'))).rejects.toThrow(
      'refusing to materialize "s1"',
    )
    expect(readFileSync(path, 'utf8')).toBe('OTHER\n')
    expect(readdirSync(root)).toEqual(['s1.jsonl'])
  })

  it.each(['write', 'sync', 'link'] as const)('a %s failure leaves no session file and no temp file', async (op) => {
    const fs = new FaultyFs().plan({ op, partial: 1 })
    await expect(publishFile(fs, root, path, 's1', enc.encode('H\nA\n'))).rejects.toThrow(`injected ${op} failure`)
    expect(readdirSync(root)).toEqual([])
    await publishFile(fs, root, path, 's1', enc.encode('H\nA\n'))
    expect(readFileSync(path, 'utf8')).toBe('H\nA\n')
  })

  it('a root fsync failure after the link undoes the publication', async () => {
    const fs = new FaultyFs().plan({ op: 'syncDir', path: /sessions$/ })
    await expect(publishFile(fs, root, path, 's1', enc.encode('H\n'))).rejects.toThrow('injected syncDir failure')
    expect(readdirSync(root)).toEqual([])
  })

  it('creates the root with mode 0o700 and the file with mode 0o600', async () => {
    await publishFile(nodeFs, root, path, 's1', enc.encode('H\n'))
    const { statSync } = await import('node:fs')
    expect(statSync(root).mode & 0o777).toBe(0o700)
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })
})

describe('appendFile', () => {
  beforeEach(async () => {
    await publishFile(nodeFs, root, path, 's1', enc.encode('H\n'))
  })

  it('appends with one write and one fsync per batch', async () => {
    const fs = new FaultyFs()
    await appendFile(fs, path, enc.encode('A\nB\nC\n'))
    expect(readFileSync(path, 'utf8')).toBe('H\nA\nB\nC\n')
    expect(fs.calls.filter((c) => c.op === 'sync')).toHaveLength(1)
    expect(fs.calls.filter((c) => c.op === 'write')).toHaveLength(1)
  })

  it.each([
    ['a partial write', { op: 'write' as const, partial: 3 }],
    ['an fsync', { op: 'sync' as const }],
  ])('%s failure is truncated back and rethrown', async (_, fault) => {
    const fs = new FaultyFs().plan(fault)
    await expect(appendFile(fs, path, enc.encode('A\nB\n'))).rejects.toThrow(/injected (write|sync) failure/)
    expect(readFileSync(path, 'utf8')).toBe('H\n')
    await appendFile(fs, path, enc.encode('A\nB\n'))
    expect(readFileSync(path, 'utf8')).toBe('H\nA\nB\n')
  })

  it('a failed rollback is an AggregateError naming the file', async () => {
    const fs = new FaultyFs().plan({ op: 'write', partial: 2 }, { op: 'truncate' })
    const error = await appendFile(fs, path, enc.encode('A\nB\n')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AggregateError)
    expect((error as Error).message).toBe(`failed to roll back append to "${path}"`)
    expect((error as AggregateError).errors.map(String)).toEqual([
      `Error: injected write failure on ${path}`,
      `Error: injected truncate failure on ${path}`,
    ])
    expect(isRollbackFailure(error)).toBe(true)
    expect(isRollbackFailure(new AggregateError([]))).toBe(false)
  })

  it('never recreates a deleted file', async () => {
    const { rmSync } = await import('node:fs')
    rmSync(path)
    await expect(appendFile(nodeFs, path, enc.encode('A\n'))).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('repairFile', () => {
  it('truncates to the committed size and appends the closers', async () => {
    await publishFile(nodeFs, root, path, 's1', enc.encode('H\nA\nfrag'))
    await repairFile(nodeFs, path, 4, enc.encode('C\n'))
    expect(readFileSync(path, 'utf8')).toBe('H\nA\nC\n')
  })
})
