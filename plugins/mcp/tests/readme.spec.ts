// Keeps the README examples honest: the bridle.yaml row parses with this plugin's Config, and the code example runs
// as written against the real filesystem server (started from node_modules instead of through npx).
import { callId } from '@bridle/llm'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it, vi } from 'vitest'
import { parse } from 'yaml'
import { Config, Mcp } from '../src/index.js'
import { captureLogs, FILESYSTEM, tempDir } from './helpers.js'

// real child processes on a shared machine: starting one can take seconds
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

captureLogs()
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

it('the bridle.yaml example is a valid plugin row', () => {
  const yaml = /```yaml\n([\s\S]*?)```/.exec(readme)![1]!
  const row = (parse(yaml) as { plugins: { package: string; config: unknown }[] }).plugins[0]!
  expect(row.package).toBe('@bridle/plugin-mcp')
  const config = Config(row.config)
  expect(Object.keys(config.servers)).toEqual(['fs', 'docs'])
  expect(config.servers.fs).toMatchObject({
    command: 'npx',
    exclude: ['write_file', 'edit_file', 'move_file', 'create_directory'],
  })
  expect(config.servers.docs).toMatchObject({ url: 'https://mcp.example.com/mcp' })
})

it('the code example', async () => {
  const notes = tempDir()
  writeFileSync(join(notes, 'todo.txt'), 'water the plants\n')
  const app = new Context()
  app.plugin(SystemPrompt)
  app.plugin(ToolRegistry)
  const states: string[] = []
  app.on('mcp/status', (s) => void states.push(`${s.server} ${s.state} ${s.tools.length}`))
  const fork = app.plugin(Mcp, { servers: { fs: { command: process.execPath, args: [FILESYSTEM, notes] } } })
  await app.lifecycle.flush()
  expect(states).toEqual(['fs connecting 0', 'fs ready 14'])

  const result = await app.tools.execute({
    callId: callId('c1'),
    name: 'fs__read_text_file',
    arguments: { path: join(notes, 'todo.txt') },
    signal: new AbortController().signal,
  })
  expect(result.content).toEqual([{ type: 'text', text: 'water the plants\n' }])
  const refused = await app.tools.execute({
    callId: callId('c2'),
    name: 'fs__read_text_file',
    arguments: { path: '/etc/passwd' },
    signal: new AbortController().signal,
  })
  expect(refused.error).toMatchObject({ info: { name: 'McpToolError', code: 'TOOL_ERROR' } })
  expect(refused.error!.message).toMatch(/^Access denied - path outside allowed directories: /)
  fork.dispose()
  await app.lifecycle.flush()
  expect(states.at(-1)).toBe('fs closed 0')
})
