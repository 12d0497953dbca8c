/**
 * No secret in the session log or in what the real binary prints (issue 14 item 3), and transport or
 * non-stream failures that say what happened (issue 18). A loopback server echoes the key back in every
 * way it can; `bridle run` and `bridle inspect` are then grepped, together with the JSONL file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { chunk, DONE, startMockServer, type MockServer } from '@bridle/llm-openai/testing'
import { bridle, DEMO_YAML, makeApp, offlineEnv, sessionIdOf, type Finished } from './helpers.js'

const KEY = 'sk-echo-5f3c9a0e1d2b4c6e'

let server: MockServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const outputOf = (runs: Finished[]) => runs.map((r) => r.stdout + r.stderr).join('\n')

describe('a server that echoes the key', () => {
  it('leaves no trace of it in the session log, in `run` output or in any `inspect` view', async () => {
    server = await startMockServer([
      { kind: 'http-error', status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } },
      {
        kind: 'sse',
        events: [
          chunk({ content: 'partial' }),
          { raw: `event: error\ndata: {"error":{"message":"key ${KEY} revoked"}}\n\n` },
          DONE,
        ],
      },
      { kind: 'http-error', status: 200, contentType: 'text/html', body: `<h1>Forbidden</h1><p>token ${KEY}</p>` },
    ])
    const app = makeApp(DEMO_YAML)
    const env = offlineEnv({ BRIDLE_BASE_URL: server.url, BRIDLE_MODEL: 'mock', BRIDLE_API_KEY: KEY })
    const first = await bridle(['run', 'hello'], app, env)
    const id = sessionIdOf(first.stderr)
    const second = await bridle(['run', '--session', id, 'again'], app, env)
    const third = await bridle(['run', '--session', id, 'once more'], app, env)
    // the key really went out; only its echo is redacted
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${KEY}`,
      `Bearer ${KEY}`,
      `Bearer ${KEY}`,
    ])
    expect(first.code).toBe(1)
    expect(first.stderr).toContain('bridle: the turn failed: Incorrect API key provided: [redacted] (AUTH)')
    expect(second.stderr).toContain('bridle: the turn failed: key [redacted] revoked (SERVER)')
    expect(third.stderr).toContain(
      `is not an event stream (content-type text/html): Forbidden token [redacted] (MALFORMED_RESPONSE)`,
    )

    const log = readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
    expect(log).toContain('[redacted]')
    const views = await Promise.all([
      bridle(['inspect', id], app, env),
      bridle(['inspect', id, '--json'], app, env),
      bridle(['inspect', id, '--step', '1', '--turn', '2'], app, env),
      bridle(['inspect', id, '--step', '1', '--turn', '3', '--json'], app, env),
      bridle(['inspect', id, '--cache', '--verify'], app, env),
      // without the key in the environment, the log alone must still be clean
      bridle(['inspect', id, '--json'], app, offlineEnv()),
    ])
    expect(views.map((v) => v.code)).toEqual([0, 0, 0, 0, 0, 0])
    expect(views[0]!.stdout).toMatch(/turn 1 .*error: Incorrect API key provided: \[redacted\]/)
    for (const text of [log, outputOf([first, second, third]), outputOf(views)]) expect(text).not.toContain(KEY)
  }, 180_000)
})

describe('a base URL with credentials', () => {
  const SECRET = 'pw-never-print-7788'

  it('BRIDLE_BASE_URL and --base-url are refused before anything runs, naming the source and not the secret', async () => {
    const app = makeApp(DEMO_YAML)
    const url = `http://user:${SECRET}@127.0.0.1:9/v1`
    const fromEnv = await bridle(['run', 'hi'], app, offlineEnv({ BRIDLE_BASE_URL: url, BRIDLE_MODEL: 'm' }))
    const fromFlag = await bridle(['run', '--base-url', url, '-m', 'm', 'hi'], app)
    expect(fromEnv).toEqual({
      code: 2,
      stdout: '',
      stderr: 'bridle: BRIDLE_BASE_URL must not contain credentials (user:password@); put the key in BRIDLE_API_KEY\n',
    })
    expect(fromFlag.code).toBe(2)
    expect(fromFlag.stderr).toBe(
      'bridle: --base-url must not contain credentials (user:password@); put the key in BRIDLE_API_KEY\n',
    )
    expect(existsSync(join(app, 'sessions')) ? readdirSync(join(app, 'sessions')) : []).toEqual([])
  })

  it('an app row with such a baseURL fails as a config error naming the file, plugin and field', async () => {
    const app = makeApp(`plugins:
  - package: "@bridle/llm-openai"
    config: { provider: local, baseURL: "https://${SECRET}@127.0.0.1:9/v1", apiKeyEnv: null }
agent: { provider: local, model: m }
`)
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(2)
    expect(out.stderr).toMatch(
      /^bridle: \S+bridle\.yaml: plugin "@bridle\/llm-openai": llm-openai: invalid config: baseURL: must not contain credentials \(user:password@\); give the key through apiKeyEnv\n$/,
    )
    expect(out.stderr).not.toContain(SECRET)
  })
})

describe('failures that say what happened', () => {
  it('a refused connection names its cause (ECONNREFUSED)', async () => {
    const probe = createServer()
    const port = await new Promise<number>((resolve) =>
      probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)),
    )
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const app = makeApp(DEMO_YAML)
    const out = await bridle(
      ['run', 'hi'],
      app,
      offlineEnv({ BRIDLE_BASE_URL: `http://127.0.0.1:${port}`, BRIDLE_MODEL: 'm' }),
    )
    expect(out.code).toBe(1)
    expect(out.stderr).toContain(
      `bridle: the turn failed: request to http://127.0.0.1:${port} failed: connect ECONNREFUSED 127.0.0.1:${port} (TRANSPORT)`,
    )
  })

  it('an HTML page instead of a stream says what came back', async () => {
    server = await startMockServer([
      {
        kind: 'http-error',
        status: 200,
        contentType: 'text/html',
        body: '<title>Captive portal</title><p>Please sign in</p>',
      },
    ])
    const out = await bridle(
      ['run', 'hi'],
      makeApp(DEMO_YAML),
      offlineEnv({ BRIDLE_BASE_URL: server.url, BRIDLE_MODEL: 'm' }),
    )
    expect(out.code).toBe(1)
    expect(out.stderr).toContain(
      `bridle: the turn failed: response from ${server.url} is not an event stream (content-type text/html): Captive portal Please sign in (MALFORMED_RESPONSE)`,
    )
  })
})
