import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { confineToWorkspace, isInside, ReadFileError, workspaceRootOf } from '../src/index.js'
import { refusal } from './harness.js'

let base: string
let root: string
let outside: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-confine-')))
  root = join(base, 'ws')
  outside = join(base, 'outside')
  await mkdir(join(root, 'src'), { recursive: true })
  await mkdir(outside, { recursive: true })
  await writeFile(join(root, 'package.json'), '{"name":"demo"}\n')
  await writeFile(join(root, 'src', 'a.ts'), 'export {}\n')
  await writeFile(join(outside, 'secret.txt'), 'TOP SECRET\n')
  await symlink(join(outside, 'secret.txt'), join(root, 'leak.txt'))
  await symlink(outside, join(root, 'escape-dir'))
  await symlink(join(root, 'src', 'a.ts'), join(root, 'inner-link.ts'))
  await symlink(join(root, 'loop-a'), join(root, 'loop-b'))
  await symlink(join(root, 'loop-b'), join(root, 'loop-a'))
  await mkdir(join(base, 'ws-sibling'))
  await writeFile(join(base, 'ws-sibling', 'x.txt'), 'sibling\n')
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

async function refused(requested: string, code = 'OUTSIDE_WORKSPACE'): Promise<ReadFileError> {
  const error = await refusal(confineToWorkspace(root, requested))
  expect(error.code).toBe(code)
  return error
}

describe('confineToWorkspace: escapes are refused', () => {
  it('refuses a relative path climbing out with ..', async () => {
    const e = await refused('../outside/secret.txt')
    expect(e.message).toBe(
      `path "../outside/secret.txt" is outside the workspace (${root}); only files inside it can be read`,
    )
  })
  it('refuses .. hidden in the middle of a path', async () => {
    await refused('src/../../outside/secret.txt')
  })
  it('refuses a bare ..', async () => {
    await refused('..')
  })
  it('refuses a sibling directory sharing the root as a string prefix', async () => {
    await refused('../ws-sibling/x.txt')
    await refused(join(base, 'ws-sibling', 'x.txt'))
  })
  it('refuses an absolute path outside the workspace', async () => {
    await refused(join(outside, 'secret.txt'))
    await refused('/etc/passwd')
  })
  it('refuses a symlinked file that resolves outside', async () => {
    const e = await refused('leak.txt')
    expect(e.message).toContain('resolves through a symlink')
  })
  it('refuses a path through a symlinked directory that resolves outside', async () => {
    await refused('escape-dir/secret.txt')
  })
  it('refuses a NUL byte', async () => {
    await refused('package.json\0.txt')
  })
  it('reports a missing file as NOT_FOUND without leaking anything', async () => {
    const e = await refused('nope.txt', 'NOT_FOUND')
    expect(e.message).toContain('file not found: "nope.txt"')
  })
  it('reports a symlink loop', async () => {
    await refused('loop-a', 'UNREADABLE')
  })
})

describe('confineToWorkspace: inside paths are allowed', () => {
  it('resolves relative, ./ and inner .. paths', async () => {
    expect(await confineToWorkspace(root, 'package.json')).toBe(join(root, 'package.json'))
    expect(await confineToWorkspace(root, './src/a.ts')).toBe(join(root, 'src', 'a.ts'))
    expect(await confineToWorkspace(root, 'src/../package.json')).toBe(join(root, 'package.json'))
  })
  it('accepts an absolute path inside the workspace', async () => {
    expect(await confineToWorkspace(root, join(root, 'src', 'a.ts'))).toBe(join(root, 'src', 'a.ts'))
  })
  it('follows a symlink that stays inside', async () => {
    expect(await confineToWorkspace(root, 'inner-link.ts')).toBe(join(root, 'src', 'a.ts'))
  })
})

describe('isInside / workspaceRootOf', () => {
  it('treats prefixes correctly', () => {
    expect(isInside('/w', '/w')).toBe(true)
    expect(isInside('/w', '/w/a')).toBe(true)
    expect(isInside('/w', `/w/..foo`)).toBe(true)
    expect(isInside('/w', '/wx')).toBe(false)
    expect(isInside('/w', '/')).toBe(false)
    expect(isInside('/w', `/w${sep}..${sep}x`)).toBe(false)
  })
  it('prefers the configured root, then the agent cwd, then process.cwd()', () => {
    const agent = { session: { header: { cwd: '/agent/cwd' } } }
    expect(workspaceRootOf('/configured', agent)).toBe('/configured')
    expect(workspaceRootOf(undefined, agent)).toBe('/agent/cwd')
    expect(workspaceRootOf(undefined, { session: { header: {} } })).toBe(process.cwd())
    expect(workspaceRootOf(undefined, undefined)).toBe(process.cwd())
    // an agent may have no session yet, and a session no header: both fall back instead of throwing
    expect(workspaceRootOf(undefined, {})).toBe(process.cwd())
    expect(workspaceRootOf(undefined, { session: {} })).toBe(process.cwd())
    // a relative cwd names no place on its own
    expect(workspaceRootOf(undefined, { session: { header: { cwd: 'relative/dir' } } })).toBe(process.cwd())
    expect(workspaceRootOf('relative/root', agent)).toBe(resolve('relative/root'))
  })
})

describe('confineToWorkspace: property', () => {
  it('any mix of .., ., names, symlinks and absolute prefixes either resolves inside the real root or is refused', async () => {
    const segment = fc.constantFrom(
      '..',
      '.',
      'src',
      'a.ts',
      'leak.txt',
      'escape-dir',
      'inner-link.ts',
      'secret.txt',
      'outside',
      'ws',
      '',
    )
    const prefix = fc.constantFrom('', '/', `${root}/`, `${base}/`, `${outside}/`)
    await fc.assert(
      fc.asyncProperty(prefix, fc.array(segment, { maxLength: 6 }), async (start, parts) => {
        const requested = start + parts.join('/')
        if (requested === '') return
        try {
          const resolved = await confineToWorkspace(root, requested)
          expect(isInside(root, resolved)).toBe(true)
        } catch (e) {
          expect(e).toBeInstanceOf(ReadFileError)
        }
      }),
      { numRuns: 300 },
    )
  })
})
