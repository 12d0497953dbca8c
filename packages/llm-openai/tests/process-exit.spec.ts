/**
 * After cancel or dispose nothing keeps the process alive (issue 14 item 5): a real child process runs
 * one call against this process's mock server, ends it, and must then exit on its own. Before the fix,
 * the SDK's 40 s retry sleep (and a body's watchdog) held the child's event loop open.
 */
import { fileURLToPath } from 'node:url'
import { spawn } from 'node:child_process'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { chunk, startMockServer, type MockBehaviour, type MockServer } from '../src/testing.js'
import { buildChild } from '../../../tests/support/build-child.js'

let bundle: string
beforeAll(async () => {
  bundle = await buildChild(fileURLToPath(new URL('./exit/child.ts', import.meta.url)))
}, 120_000)

let server: MockServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** Generous: a child that exits on its own does so in well under a second. */
const MUST_EXIT_WITHIN_MS = 15_000

interface ChildResult {
  exited: boolean
  code: number | null
  stdout: string
  stderr: string
}

function runChild(url: string, scenario: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, url, scenario], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    const guard = setTimeout(() => {
      child.kill('SIGKILL')
      resolve({ exited: false, code: null, stdout, stderr })
    }, MUST_EXIT_WITHIN_MS)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearTimeout(guard)
      // let the pipes drain
      setImmediate(() => resolve({ exited: true, code, stdout, stderr }))
    })
  })
}

const waitAnswer: MockBehaviour = {
  kind: 'http-error',
  status: 429,
  body: { error: { message: 'slow down' } },
  headers: { 'retry-after': '40' },
}
const hangingBody: MockBehaviour = { kind: 'hang', events: [chunk({ content: 'partial' })] }
const disposed = {
  kind: 'aborted',
  failure: { code: 'ABORTED', message: 'request aborted: the mock route was disposed' },
}
const cancelled = { kind: 'aborted', failure: { code: 'ABORTED', message: 'request aborted' } }

describe('a child process exits on its own after the call ends', () => {
  it.each([
    ['cancel-backoff', waitAnswer, cancelled],
    ['dispose-backoff', waitAnswer, disposed],
    ['cancel-body', hangingBody, cancelled],
    ['dispose-body', hangingBody, disposed],
    ['consumer-return', hangingBody, 'consumer stopped'],
  ] as const)(
    '%s',
    async (scenario, behaviour, finish) => {
      server = await startMockServer([behaviour])
      const result = await runChild(server.url, scenario)
      expect(result.stderr).toBe('')
      expect(
        result.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as unknown),
      ).toEqual([{ finish }])
      expect(result.exited, 'the child was still running: a timer or socket kept it alive').toBe(true)
      expect(result.code).toBe(0)
      expect(server.requests).toHaveLength(1)
      if (behaviour.kind === 'hang') await server.requests[0]!.disconnected
    },
    60_000,
  )
})
