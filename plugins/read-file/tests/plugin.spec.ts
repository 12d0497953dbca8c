import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { callId, ConfigError } from '@bridle/llm'
import { createScope } from '@bridle/scope'
import { renderPrompt, SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentAt, load, read, text } from './harness.js'
import { Config, READ_FILE_GUIDANCE_ORDER, READ_FILE_GUIDANCE_SECTION, ReadFile } from '../src/index.js'
import { takeLogLines } from '../../../tests/support/logs.js'

let base: string
let ws: string
let outside: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-readfile-')))
  ws = join(base, 'project')
  outside = join(base, 'elsewhere')
  await mkdir(join(ws, 'src'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(ws, 'package.json'), '{\n  "name": "demo-app"\n}\n')
  await writeFile(join(outside, 'secret.env'), 'API_TOKEN=do-not-leak\n')
  await writeFile(join(ws, 'logo.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]))
  await symlink(join(outside, 'secret.env'), join(ws, 'linked.env'))
  await symlink(outside, join(ws, 'src', 'vendor'))
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('read_file through ctx.tools', () => {
  it('reads package.json relative to the agent’s workspace root, with line numbers', async () => {
    const { root } = load()
    const r = await read(root, { path: 'package.json' }, agentAt(ws))
    expect(r.isError).toBe(false)
    expect(text(r)).toBe('     1\t{\n     2\t  "name": "demo-app"\n     3\t}\n[end of file: lines 1-3 of 3]')
  })

  it('uses a configured root over the agent cwd', async () => {
    const { root } = load({ root: ws })
    expect(text(await read(root, { path: 'package.json' }, agentAt(outside)))).toContain('"name": "demo-app"')
  })

  it('pages with offset and limit', async () => {
    const { root } = load()
    expect(text(await read(root, { path: 'package.json', offset: 2, limit: 1 }, agentAt(ws)))).toBe(
      '     2\t  "name": "demo-app"\n[showing lines 2-2; more lines follow; call read_file with offset=3 to continue]',
    )
  })

  const escapes: [string, string][] = [
    ['.. escape', '../elsewhere/secret.env'],
    ['deep .. escape', 'src/../../elsewhere/secret.env'],
    ['absolute path outside', '/etc/hostname'],
    ['absolute path to the sibling', '<base>/elsewhere/secret.env'],
    ['symlinked file', 'linked.env'],
    ['symlinked directory', 'src/vendor/secret.env'],
  ]
  for (const [label, path] of escapes) {
    it(`refuses an escape: ${label}`, async () => {
      const { root } = load()
      const r = await read(root, { path: path.replace('<base>', base) }, agentAt(ws))
      expect(r.isError).toBe(true)
      expect(r.error!.info).toEqual({ name: 'ReadFileError', code: 'OUTSIDE_WORKSPACE' })
      expect(text(r)).toMatch(/^Error: path ".*" (is outside the workspace|resolves through a symlink)/)
      expect(JSON.stringify(r)).not.toContain('do-not-leak')
    })
  }

  it('refuses a binary file with a clear message', async () => {
    const { root } = load()
    const r = await read(root, { path: 'logo.png' }, agentAt(ws))
    expect(text(r)).toBe('Error: "logo.png" is a binary file (it contains NUL bytes); read_file only reads text')
    expect(r.error!.info).toEqual({ name: 'ReadFileError', code: 'BINARY_FILE' })
  })

  it('tells the model about bad arguments by path and type', async () => {
    const { root } = load()
    expect(text(await read(root, { path: 3 }, agentAt(ws)))).toBe(
      'Error: invalid arguments: path: Invalid input: expected string, received number',
    )
    expect(text(await read(root, { path: 'a', offset: 0 }, agentAt(ws)))).toMatch(
      /^Error: invalid arguments: offset: Too small/,
    )
    expect(text(await read(root, { path: 'a', bogus: 1 }, agentAt(ws)))).toBe(
      'Error: invalid arguments: (root): Unrecognized key: "bogus"',
    )
    expect(text(await read(root, '', agentAt(ws)))).toBe(
      'Error: invalid arguments: path: Invalid input: expected string, received undefined',
    )
  })

  it('is concurrency-safe', () => {
    const { root } = load()
    expect(
      root.tools.executionMode({
        callId: callId('x'),
        name: 'read_file',
        rawArguments: '{"path":"a"}',
        signal: new AbortController().signal,
      }),
    ).toBe('parallel')
  })
})

describe('prompt contributions and lifetime', () => {
  it('adds the schema and a tool-guidance section in the 100–199 band', async () => {
    const { root } = load()
    const assembly = await root.systemPrompt.assemble()
    expect(assembly.tools.map((t) => t.name)).toEqual(['read_file'])
    expect(assembly.tools[0]!.parameters).toMatchObject({ type: 'object', required: ['path'] })
    expect(READ_FILE_GUIDANCE_ORDER).toBeGreaterThanOrEqual(100)
    expect(READ_FILE_GUIDANCE_ORDER).toBeLessThan(200)
    const section = assembly.sections.find((s) => s.name === READ_FILE_GUIDANCE_SECTION)!
    expect(section.text).toContain('read_file')
    expect(renderPrompt(assembly)).toContain('Reading files: use the read_file tool.')
  })

  it('unloading the plugin removes the tool and section from the next assembly', async () => {
    const { root, fork } = load()
    fork.dispose()
    const assembly = await root.systemPrompt.assemble()
    expect(assembly.tools).toEqual([])
    expect(assembly.sections.map((s) => s.name)).not.toContain(READ_FILE_GUIDANCE_SECTION)
    expect((await read(root, { path: 'package.json' }, agentAt(ws))).error!.info!.code).toBe('UNKNOWN_TOOL')
  })

  it('mounted through an agent scope it serves that agent only', async () => {
    const root = new Context()
    root.plugin(SystemPrompt)
    root.plugin(ToolRegistry)
    const mine = agentAt(ws)
    const other = agentAt(ws)
    createScope(root, mine).ctx.plugin(ReadFile)
    createScope(root, other)
    expect((await root.systemPrompt.assemble({ scope: mine })).tools.map((t) => t.name)).toEqual(['read_file'])
    expect((await root.systemPrompt.assemble({ scope: other })).tools).toEqual([])
    expect((await read(root, { path: 'package.json' }, mine)).isError).toBe(false)
    expect((await read(root, { path: 'package.json' }, other)).error!.info!.code).toBe('UNKNOWN_TOOL')
  })

  it('rejects a bad config, naming the plugin and field, and registers nothing', async () => {
    expect(() => Config({ root: 'relative' })).toThrow(
      'plugin-read-file: invalid config: root: root must be an absolute path',
    )
    expect(() => Config({ maxByte: 1 } as never)).toThrow(ConfigError)
    const { root, fork } = load({ maxBytes: -1 })
    expect(fork.error).toBeInstanceOf(ConfigError)
    expect((await root.systemPrompt.assemble()).tools).toEqual([])
    expect(takeLogLines()).toEqual([
      'error app: ConfigError: plugin-read-file: invalid config: maxBytes: Too small: expected number to be >=256',
    ])
  })
})
