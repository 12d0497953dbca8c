/**
 * A server's credentials stay Bridle's (issue 38): a token given to a stdio server in its environment is held by the
 * secret filter, and the server's stderr, kept as a tail of its last 2,048 characters, is redacted before it is cut,
 * so a token the server prints never reaches a warning or a tool result, whole or as a suffix.
 */
import { knownSecrets } from '@bridle/llm'
import { describe, expect, it, vi } from 'vitest'
import { McpServer } from '../src/index.js'
import { boot, captureLogs, warningsIn } from './helpers.js'

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })
const logs = captureLogs()

const TOKEN = 'ghp_mcpTokenF00dBa5e0123456789abcd'

describe("an MCP server's token", () => {
  it('is held from its env, and its stderr tail is redacted before it is cut', async () => {
    const { ctx, rec } = boot()
    // the token straddles the 2,048-character tail's left edge, then the server prints it whole and dies
    const script =
      "process.stderr.write('x'.repeat(4000) + process.env.API_TOKEN + 'y'.repeat(2030) + '\\n'); " +
      "process.stderr.write('token: ' + process.env.API_TOKEN + '\\n', () => process.exit(3))"
    const fork = ctx.plugin(McpServer, {
      name: 'leaky',
      command: process.execPath,
      args: ['-e', script],
      env: { API_TOKEN: TOKEN, PATH: process.env.PATH ?? '' },
      reconnect: { maxAttempts: 0 },
    })
    await rec.status('leaky', 'failed')
    expect(knownSecrets().has(TOKEN)).toBe(true)
    const text = JSON.stringify(warningsIn(logs)) + JSON.stringify(rec.statuses)
    for (let i = 0; i + 8 <= TOKEN.length; i++) expect(text).not.toContain(TOKEN.slice(i, i + 8))
    fork.dispose()
    await rec.status('leaky', 'closed')
  })
})
