/**
 * `pnpm demo` on the Anthropic route: examples/demo/run.mjs with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL pointed at
 * the loopback Messages server answers the chapter's question through read_file, then `inspect --step 2 --verify`
 * rebuilds step 2's request from the stored log and verifies every digest. Runs the built CLI (`pnpm test` builds).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { answerEvents, startMockServer, type MockServer } from '@bridle/llm-anthropic/testing'
import { afterEach, describe, expect, it } from 'vitest'

const DEMO = fileURLToPath(new URL('../examples/demo/run.mjs', import.meta.url))

let server: MockServer | undefined
afterEach(async () => server?.close())

function run(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DEMO], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('the demo on the Anthropic adapter', () => {
  it('answers through read_file and verifies every request of the stored session', async () => {
    server = await startMockServer([
      {
        kind: 'sse',
        events: answerEvents([
          { type: 'tool_use', id: 'toolu_demo', name: 'read_file', fragments: ['{"path":"package.json"}'] },
        ]),
      },
      {
        kind: 'sse',
        events: answerEvents([{ type: 'text', fragments: ['The package is named ', 'sample-project.'] }]),
      },
    ])
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
    for (const key of ['DEEPSEEK_API_KEY', 'BRIDLE_BASE_URL', 'BRIDLE_MODEL', 'BRIDLE_API_KEY']) delete env[key]
    Object.assign(env, { ANTHROPIC_API_KEY: 'sk-ant-demo-test-0123456789', ANTHROPIC_BASE_URL: server.url })
    const out = await run(env)
    expect(out.stderr).toContain(`bridle: model anthropic/claude-sonnet-4-5 via ${server.url}`)
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('The package is named sample-project.')
    expect(server.requests).toHaveLength(2)
    // inspect --step 2 --verify: the rebuilt request of step 2, and a ✓ for both requests of the session
    expect(out.stdout.match(/✓/g)?.length).toBeGreaterThanOrEqual(2)
    expect(out.stdout).not.toMatch(/✗/)
    expect(out.stdout + out.stderr).not.toContain('sk-ant-demo-test-0123456789')
  })
})
