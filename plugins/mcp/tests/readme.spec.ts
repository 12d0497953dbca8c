// Runs the README examples from the README's text: the bridle.yaml row parses with this plugin's Config, and the code
// example runs against the real filesystem server (started from node_modules instead of through npx).
import type { Context, ForkScope } from 'cordis'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it, vi } from 'vitest'
import { parse } from 'yaml'
import { Config } from '../src/index.js'
import { readmeBlock, runExample, swapOnce } from '../../../tests/support/readme-example.js'
import { captureLogs, FILESYSTEM, tempDir } from './helpers.js'

// real child processes on a shared machine: starting one can take seconds
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

captureLogs()
const readmeUrl = new URL('../README.md', import.meta.url)

it('the bridle.yaml example is a valid plugin row', () => {
  const yaml = readmeBlock(readmeUrl, { lang: 'yaml' })
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
  // Only where the server runs from changes: this checkout's node_modules and a temporary notes folder.
  let code = readmeBlock(readmeUrl)
  code = swapOnce(
    code,
    "{ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/notes'] }",
    `{ command: process.execPath, args: ${JSON.stringify([FILESYSTEM, notes])} }`,
  )
  code = swapOnce(code, "'/srv/notes/todo.txt'", JSON.stringify(join(notes, 'todo.txt')))
  code = swapOnce(code, 'app.plugin(Mcp, {', 'export const fork = app.plugin(Mcp, {')
  const { printed, exports } = await runExample(`${code}\nexport { app }\n`, import.meta.url)
  const fork = exports.fork as ForkScope
  const app = exports.app as Context
  try {
    expect(printed.slice(0, 2)).toEqual([
      ['fs', 'connecting', 0],
      ['fs', 'ready', 14],
    ])
    expect(printed[2]).toEqual([[{ type: 'text', text: 'water the plants\n' }]])
    const refused = printed[3]![0] as { message: string }
    expect(refused).toMatchObject({ info: { name: 'McpToolError', code: 'TOOL_ERROR' } })
    expect(refused.message).toMatch(/^Access denied - path outside allowed directories: /)
    expect(printed).toHaveLength(4)
  } finally {
    fork.dispose()
    await app.lifecycle.flush()
  }
})
