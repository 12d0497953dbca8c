/**
 * `bridle serve` and `bridle worker` (@bridle/cluster): their usage errors, and a front and a worker started as real
 * processes over a session-postgres app — a session created and answered over HTTP, both stopping cleanly on SIGTERM,
 * and the token never printed.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { describe, expect, inject, it } from 'vitest'
import { BIN, bridle, DEMO_YAML, makeApp, offlineEnv } from './helpers.js'

const TOKEN = `cli-test-${randomBytes(8).toString('hex')}`

const yaml = (schema: string) => `plugins:
  - "@bridle/plugin-read-file"
  - package: "@bridle/session-postgres"
    config:
      connectionString: "${inject('pgUrl')}"
      schema: ${schema}
      poolSize: 2
      leaseMs: 2000
      leaseWaitMs: 5000
agent:
  cwd: ./sample-project
`

describe('bridle serve and bridle worker', () => {
  it('refuse to start without a token, without session-postgres, or with bad flags (exit 2)', async () => {
    const jsonl = makeApp(DEMO_YAML)
    const noToken = await bridle(['serve'], jsonl)
    expect(noToken.code).toBe(2)
    expect(noToken.stderr).toBe(
      'bridle: BRIDLE_SERVE_TOKEN is not set: bridle serve answers only requests that carry that bearer token\n',
    )
    const short = await bridle(['serve'], jsonl, offlineEnv({ BRIDLE_SERVE_TOKEN: 'short' }))
    expect(short.stderr).toBe('bridle: BRIDLE_SERVE_TOKEN: every token must be at least 16 characters\n')
    const noPostgres = await bridle(['serve'], jsonl, offlineEnv({ BRIDLE_SERVE_TOKEN: TOKEN }))
    expect(noPostgres.code).toBe(2)
    expect(noPostgres.stderr).toMatch(
      /^bridle: bridle serve needs the sessions in PostgreSQL: list @bridle\/session-postgres/,
    )
    const worker = await bridle(['worker'], jsonl)
    expect(worker.code).toBe(2)
    expect(worker.stderr).toMatch(/^bridle: bridle worker needs the sessions in PostgreSQL/)
    const flag = await bridle(['worker', '-n', '0'], jsonl)
    expect(flag.code).toBe(2)
    expect(flag.stderr).toBe('bridle: --concurrency must be an integer from 1 to 256, got "0"\n')
  })

  it('a front and a worker answer a session over HTTP and stop on SIGTERM', async () => {
    const app = makeApp(yaml(`cli_${randomBytes(5).toString('hex')}`))
    const env = offlineEnv({ BRIDLE_SERVE_TOKEN: TOKEN })
    const start = (args: string[]) => {
      const child = spawn(process.execPath, [BIN, ...args], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] })
      const out = { stdout: '', stderr: '' }
      child.stdout.on('data', (d) => (out.stdout += d))
      child.stderr.on('data', (d) => (out.stderr += d))
      const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
      return { child, out, exit }
    }
    const front = start(['serve', '-p', '0'])
    const worker = start(['worker', '-n', '1', '--handover', '1'])
    await expect.poll(() => front.out.stdout, { timeout: 60_000 }).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/)
    const base = front.out.stdout.trim()
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
    const created = await fetch(`${base}/sessions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ id: 'cli-1', message: { text: 'What is the package name of this project?' } }),
    })
    expect(created.status).toBe(201)
    await expect
      .poll(
        async () => ((await (await fetch(`${base}/sessions/cli-1`, { headers })).json()) as { turns?: number }).turns,
        {
          timeout: 60_000,
          interval: 200,
        },
      )
      .toBe(1)
    worker.child.kill('SIGTERM')
    front.child.kill('SIGTERM')
    expect(await worker.exit, worker.out.stderr).toBe(0)
    expect(await front.exit, front.out.stderr).toBe(0)
    expect(worker.out.stderr).toContain('bridle worker: stopped')
    expect(front.out.stderr).toContain('bridle serve: POST /sessions 201')
    expect(front.out.stderr + worker.out.stderr).not.toContain(TOKEN)
    const verified = await bridle(['inspect', 'cli-1', '--verify'], app)
    expect(verified.code, verified.stderr).toBe(0)
  })
})
