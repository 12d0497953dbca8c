/**
 * Black-box conformance with issue 5 (`read_file`): confinement (.., absolute, symlinks), line numbers, the size cap
 * and its note, binary refusal, and the tool-guidance section in the 100–199 band. Public entry only.
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import DefaultReadFile, { ReadFile } from '@bridle/plugin-read-file'
import { createScope } from '@bridle/scope'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentAt, load, read, text } from './harness.js'

let base: string
let ws: string
let outside: string
let linkedRoot: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-readfile-spec-')))
  ws = join(base, 'ws')
  outside = join(base, 'outside')
  await mkdir(join(ws, 'dir'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(ws, 'notes.txt'), 'alpha\nbeta\ngamma\n')
  await writeFile(
    join(ws, 'big.txt'),
    Array.from({ length: 200 }, (_, i) => `line ${i + 1} ${'x'.repeat(40)}`).join('\n'),
  )
  await writeFile(join(ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
  await writeFile(join(ws, 'nul.bin'), Buffer.from([0x41, 0x00, 0x42]))
  await writeFile(join(outside, 'secret.txt'), 'TOP-SECRET\n')
  await symlink(join(outside, 'secret.txt'), join(ws, 'file-link'))
  await symlink(outside, join(ws, 'dir', 'dir-link'))
  await symlink(base, join(ws, 'up-link'))
  await symlink('notes.txt', join(ws, 'inner-link'))
  linkedRoot = join(base, 'ws-link')
  await symlink(ws, linkedRoot)
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('read_file: exports and schema', () => {
  it('exports the plugin as named and default export; the tool takes path, offset?, limit?', async () => {
    expect(DefaultReadFile).toBe(ReadFile)
    const { root } = load()
    const [schema] = (await root.systemPrompt.assemble()).tools
    expect(schema!.name).toBe('read_file')
    expect(Object.keys(schema!.parameters.properties as object).sort()).toEqual(['limit', 'offset', 'path'])
    expect(schema!.parameters.required).toEqual(['path'])
  })
})

describe('read_file: confinement (every escape refused with an error result)', () => {
  const escapes: [string, () => string][] = [
    ['a .. escape', () => '../outside/secret.txt'],
    ['a .. escape that re-enters a sibling', () => 'dir/../../outside/secret.txt'],
    ['an absolute path outside', () => join(outside, 'secret.txt')],
    ['a symlinked file pointing outside', () => 'file-link'],
    ['a path through a symlinked directory pointing outside', () => 'dir/dir-link/secret.txt'],
    ['a symlink to the parent of the workspace', () => 'up-link/outside/secret.txt'],
  ]
  for (const [label, path] of escapes) {
    it(`refuses ${label}`, async () => {
      const { root } = load()
      const r = await read(root, { path: path() }, agentAt(ws))
      expect(r.isError).toBe(true)
      expect(r.error?.info).toEqual({ name: 'ReadFileError', code: 'OUTSIDE_WORKSPACE' })
      expect(text(r)).toMatch(/^Error: path ".+" /)
      expect(JSON.stringify(r)).not.toContain('TOP-SECRET')
    })
  }
  it('allows a symlink that stays inside, and an absolute path inside', async () => {
    const { root } = load()
    expect(text(await read(root, { path: 'inner-link' }, agentAt(ws)))).toContain('\talpha')
    expect(text(await read(root, { path: join(ws, 'notes.txt') }, agentAt(ws)))).toContain('\tbeta')
  })
  it('a workspace reached through a symlink accepts both spellings of an absolute path inside it', async () => {
    const { root } = load()
    const agent = agentAt(linkedRoot)
    expect(text(await read(root, { path: 'notes.txt' }, agent))).toContain('\tgamma')
    expect(text(await read(root, { path: join(linkedRoot, 'notes.txt') }, agent))).toContain('\tgamma')
    expect(text(await read(root, { path: join(ws, 'notes.txt') }, agent))).toContain('\tgamma')
    const escaped = await read(root, { path: join(outside, 'secret.txt') }, agent)
    expect(escaped.error?.info?.code).toBe('OUTSIDE_WORKSPACE')
  })
  it('the workspace root follows each agent’s cwd', async () => {
    const { root } = load()
    const r = await read(root, { path: 'secret.txt' }, agentAt(outside))
    expect(text(r)).toContain('TOP-SECRET')
    expect((await read(root, { path: 'secret.txt' }, agentAt(ws))).error?.info?.code).toBe('NOT_FOUND')
  })
})

describe('read_file: output', () => {
  it('numbers lines and ends with an end-of-file note', async () => {
    const { root } = load()
    expect(text(await read(root, { path: 'notes.txt' }, agentAt(ws)))).toBe(
      '     1\talpha\n     2\tbeta\n     3\tgamma\n[end of file: lines 1-3 of 3]',
    )
  })
  it('caps the output with a clear truncation note, and following it continues where it stopped', async () => {
    const { root } = load({ maxBytes: 1024 })
    const first = text(await read(root, { path: 'big.txt' }, agentAt(ws)))
    expect(Buffer.byteLength(first)).toBeLessThan(1024 + 200)
    const note = first.split('\n').at(-1)!
    const match =
      /^\[output truncated: the 1024-byte cap was reached after line (\d+); call read_file with offset=(\d+) to continue\]$/.exec(
        note,
      )
    expect(match).not.toBeNull()
    const next = Number(match![2])
    expect(next).toBe(Number(match![1]) + 1)
    const second = text(await read(root, { path: 'big.txt', offset: next }, agentAt(ws)))
    expect(second.split('\n')[0]).toBe(`${String(next).padStart(6)}\tline ${next} ${'x'.repeat(40)}`)
  })
  it('refuses binary files (NUL bytes, invalid UTF-8) with a clear message', async () => {
    const { root } = load()
    const nul = await read(root, { path: 'nul.bin' }, agentAt(ws))
    expect(text(nul)).toBe('Error: "nul.bin" is a binary file (it contains NUL bytes); read_file only reads text')
    expect(nul.error?.info).toEqual({ name: 'ReadFileError', code: 'BINARY_FILE' })
    const latin1 = await read(root, { path: 'latin1.txt' }, agentAt(ws))
    expect(text(latin1)).toBe(
      'Error: "latin1.txt" is a binary file (it is not valid UTF-8 text); read_file only reads text',
    )
  })
})

describe('read_file: prompt contributions', () => {
  it('adds a tool-guidance section ordered between 100 and 199, rendered after the persona', async () => {
    const { root } = load()
    root.systemPrompt.section({ name: 'probe:99', order: 99, text: 'x' })
    root.systemPrompt.section({ name: 'probe:200', order: 200, text: 'y' })
    const names = (await root.systemPrompt.assemble()).sections.map((s) => s.name)
    const guidance = names.filter(
      (name) => !name.startsWith('probe:') && name !== 'harness:identity' && name !== 'deployment:persona',
    )
    expect(guidance).toHaveLength(1)
    const at = names.indexOf(guidance[0]!)
    expect(at).toBeGreaterThan(names.indexOf('probe:99'))
    expect(at).toBeLessThan(names.indexOf('probe:200'))
  })
  it('disposing the plugin removes the tool and the section from the next assembly', async () => {
    const { root, fork } = load()
    fork.dispose()
    const a = await root.systemPrompt.assemble()
    expect(a.tools).toEqual([])
    expect(a.sections.map((s) => s.name)).toEqual(['harness:identity', 'deployment:persona'])
  })
  it('loaded through an agent’s context it shows only in that agent’s assembly', async () => {
    const root = new Context()
    root.plugin(SystemPrompt)
    root.plugin(ToolRegistry)
    const mine = agentAt(ws)
    const other = agentAt(outside)
    const scope = createScope(root, mine)
    createScope(root, other)
    scope.ctx.plugin(ReadFile)
    expect((await root.systemPrompt.assemble({ scope: mine })).tools.map((t) => t.name)).toEqual(['read_file'])
    expect((await root.systemPrompt.assemble({ scope: other })).tools).toEqual([])
    expect((await root.systemPrompt.assemble()).tools).toEqual([])
  })
})
