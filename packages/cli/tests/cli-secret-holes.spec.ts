/**
 * The five holes of issue 38, each through the built CLI against a loopback server: a key split across deltas, a cut
 * made before redaction, credentials entering the log (and the next request) from a file the model reads, streams
 * that never end, and a credential in the base URL's query string.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { chunk, startMockServer, textEvents, toolCallEvents, type MockServer } from '@bridle/llm-openai/testing'
import { bridle, DEMO_YAML, makeApp, offlineEnv, sessionIdOf } from './helpers.js'
import { expectNoWindow } from './secrets-probe.js'

const KEY = 'sk-BRIDLEKEY-7f3a9c2e41b8d6a05c'

let server: MockServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const envFor = (url: string, extra: Record<string, string> = {}) =>
  offlineEnv({ BRIDLE_BASE_URL: url, BRIDLE_MODEL: 'mock', BRIDLE_API_KEY: KEY, ...extra })

/** The text of every session file of an app. */
const storedText = (app: string) =>
  readdirSync(join(app, 'sessions'))
    .map((f) => readFileSync(join(app, 'sessions', f), 'utf8'))
    .join('\n')

describe('1. a key split across streamed deltas', () => {
  it('is never printed whole or in part by `bridle run`, and is stored as [redacted]', async () => {
    server = await startMockServer([
      { kind: 'sse', events: textEvents(['Your key: sk-BRIDLEK', 'EY-7f3a9c2e4', '1b8d6a05c, keep it.']) },
    ])
    const app = makeApp(DEMO_YAML)
    const out = await bridle(['run', 'what is my key?'], app, envFor(server.url))
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout).toContain('Your key: [redacted], keep it.')
    for (const text of [out.stdout, out.stderr, storedText(app)]) expectNoWindow('run', text, [KEY])
  })
})

describe('2. redact first, cut after', () => {
  it('a provider error whose key straddles character 500 leaves no prefix in run, the log or inspect', async () => {
    const message = `${'quota exceeded for the organization, '.repeat(13).slice(0, 490)} ${KEY} please retry`
    server = await startMockServer([{ kind: 'http-error', status: 400, body: { error: { message } } }])
    const app = makeApp(DEMO_YAML)
    const out = await bridle(['run', 'hi'], app, envFor(server.url))
    expect(out.code).toBe(1)
    expect(out.stderr).toMatch(/bridle: the turn failed: .* \[redacted\]?/)
    const id = sessionIdOf(out.stderr)
    const views = await Promise.all([
      bridle(['inspect', id], app, offlineEnv()),
      bridle(['inspect', id, '--events'], app, offlineEnv()),
      bridle(['inspect', id, '--step', '1', '--events'], app, offlineEnv()),
    ])
    for (const text of [out.stdout, out.stderr, storedText(app), ...views.map((v) => v.stdout + v.stderr)])
      expectNoWindow('error at 500', text, [KEY])
  })

  it('inspect --step N --events cuts each event preview only after redacting (a log written before the key was known)', async () => {
    // the key enters the log because Bridle did not hold it when the session was written; inspect holds it later
    const args = JSON.stringify({ path: 'README.md', note: `${'n'.repeat(40)}${KEY}` })
    server = await startMockServer([
      { kind: 'sse', events: toolCallEvents([{ id: 'call_1', name: 'read_file', argFragments: [args] }]) },
      { kind: 'sse', events: textEvents(['done']) },
    ])
    const app = makeApp(DEMO_YAML)
    const written = await bridle(
      ['run', 'read it'],
      app,
      offlineEnv({ BRIDLE_BASE_URL: server.url, BRIDLE_MODEL: 'mock' }),
    )
    expect(written.code, written.stderr).toBe(0)
    const id = sessionIdOf(written.stderr)
    expect(storedText(app)).toContain(KEY)
    const later = offlineEnv({ DEEPSEEK_API_KEY: KEY })
    const html = join(app, 'old.html')
    const views = await Promise.all([
      bridle(['inspect', id, '--step', '1', '--events'], app, later),
      bridle(['inspect', id, '--events'], app, later),
      bridle(['inspect', id, '--step', '1'], app, later),
      bridle(['inspect', id, '--json', '--events'], app, later),
      bridle(['inspect', id, '--html', html], app, later),
    ])
    expect(views.map((v) => v.code)).toEqual([0, 0, 0, 0, 0])
    // the preview of the tool call is cut inside the key's place: what remains is the start of the marker
    expect(views[1]!.stdout).toMatch(/tool\/call +read_file \{"path":"README.md","note":"n+\[re/)
    for (const text of [...views.map((v) => v.stdout + v.stderr), readFileSync(html, 'utf8')])
      expectNoWindow('inspect of an old log', text, [KEY])
  })
})

describe('3. credentials never enter the durable log', () => {
  it('a .env read with read_file and a key repeated in a tool call are stored redacted, and sent back redacted', async () => {
    server = await startMockServer([
      {
        kind: 'sse',
        events: toolCallEvents([
          { id: 'call_env', name: 'read_file', argFragments: ['{"path":', '".env"}'] },
          { id: 'call_key', name: 'read_file', argFragments: ['{"path":"sk-BRIDLE', 'KEY-7f3a9c2e41b8d6a05c"}'] },
        ]),
      },
      { kind: 'sse', events: textEvents(['The key is in .env.']) },
    ])
    const app = makeApp(DEMO_YAML)
    writeFileSync(join(app, 'sample-project', '.env'), `BRIDLE_API_KEY=${KEY}\n`)
    const out = await bridle(['run', 'what is in .env?'], app, envFor(server.url))
    expect(out.code, out.stderr).toBe(0)
    const id = sessionIdOf(out.stderr)
    const followUp = server.requests[1]!.rawBody
    expect(followUp).toContain('BRIDLE_API_KEY=[redacted]')
    const readers = await Promise.all([
      bridle(['inspect', id, '--json', '--events'], app, offlineEnv()),
      bridle(['inspect', id, '--verify'], app, offlineEnv()),
    ])
    expect(readers[1]!.stdout).toMatch(/verification passed: 2 requests match their digests/)
    expect(storedText(app)).toContain('[redacted]')
    for (const text of [out.stdout, out.stderr, storedText(app), followUp, ...readers.map((r) => r.stdout + r.stderr)])
      expectNoWindow('log', text, [KEY])
  })
})

describe('4. every model call ends', () => {
  const boundedApp = (url: string, bounds: string) =>
    makeApp(`plugins:
  - "@bridle/plugin-workspace"
  - "@bridle/plugin-read-file"
  - package: "@bridle/session-jsonl"
    config: { root: sessions }
  - package: "@bridle/llm-openai"
    config: { provider: slow, baseURL: "${url}", apiKeyEnv: null, maxRetries: 0, models: [{ id: m, contextWindow: 8192 }], ${bounds} }
agent: { provider: slow, model: m, cwd: ./sample-project }
`)

  /** The only session's log: its size, and the reason its turn ended. */
  const ended = (app: string) => {
    const [file] = readdirSync(join(app, 'sessions'))
    const text = readFileSync(join(app, 'sessions', file!), 'utf8')
    const events = text
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as { type: string; data: any })
    return {
      bytes: statSync(join(app, 'sessions', file!)).size,
      end: events.find((e) => e.type === 'turn/end')?.data.reason,
      answered: events.some((e) => e.type === 'assistant/message'),
    }
  }

  it('empty deltas every 20 ms: TIMEOUT at streamDataTimeoutMs, an error turn, a small log', async () => {
    server = await startMockServer([
      { kind: 'repeat', events: [chunk({ role: 'assistant', content: 'partial' })], item: chunk({}), intervalMs: 20 },
    ])
    const app = boundedApp(server.url, 'streamIdleTimeoutMs: 400, streamDataTimeoutMs: 600')
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(1)
    expect(out.stderr).toContain('sent nothing new for 600ms (keep-alives and empty events do not count) (TIMEOUT)')
    const log = ended(app)
    expect(log.end).toMatchObject({ kind: 'error', error: { code: 'TIMEOUT' } })
    expect(log.answered).toBe(false)
    expect(log.bytes).toBeLessThan(64 * 1024)
  })

  it('text every 20 ms forever: TIMEOUT at streamTotalTimeoutMs with the partial answer in an error turn', async () => {
    server = await startMockServer([{ kind: 'repeat', item: chunk({ content: 'more ' }), intervalMs: 20 }])
    const app = boundedApp(server.url, 'streamTotalTimeoutMs: 1500')
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(1)
    expect(out.stdout).toContain('more more')
    expect(out.stderr).toContain(
      `model call to ${server.url} did not finish within 1500ms (streamTotalTimeoutMs) (TIMEOUT)`,
    )
    const log = ended(app)
    expect(log.end).toMatchObject({ kind: 'error', error: { code: 'TIMEOUT' } })
    expect(log.answered).toBe(false)
    expect(log.bytes).toBeLessThan(1024 * 1024)
  })

  it('text as fast as it can: RESPONSE_TOO_LARGE at maxResponseBytes, the log bounded by the cap', async () => {
    server = await startMockServer([{ kind: 'repeat', item: chunk({ content: 'more ' }), intervalMs: 0 }])
    const app = boundedApp(server.url, 'maxResponseBytes: 65536')
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(1)
    expect(out.stderr).toContain('passed 65536 bytes without finishing (maxResponseBytes) (RESPONSE_TOO_LARGE)')
    const log = ended(app)
    expect(log.end).toMatchObject({ kind: 'error', error: { code: 'RESPONSE_TOO_LARGE' } })
    expect(log.bytes).toBeLessThan(256 * 1024)
  })
})

describe('5. a credential in the base URL query string', () => {
  const SECRET = 'q-never-print-5521aa'

  it('BRIDLE_BASE_URL with ?api-key= is refused before anything runs, naming the parameter, never the value', async () => {
    const app = makeApp(DEMO_YAML)
    const out = await bridle(
      ['run', 'hi'],
      app,
      offlineEnv({
        BRIDLE_BASE_URL: `http://127.0.0.1:9/v1?api-version=2024-10-21&api-key=${SECRET}`,
        BRIDLE_MODEL: 'm',
      }),
    )
    expect(out).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'bridle: BRIDLE_BASE_URL must not carry a credential in its query string (parameter "api-key"); put the key in BRIDLE_API_KEY\n',
    })
    expect(existsSync(join(app, 'sessions')) ? readdirSync(join(app, 'sessions')) : []).toEqual([])
  })

  it('an app row with such a baseURL is a config error naming the field and the parameter', async () => {
    const app = makeApp(`plugins:
  - package: "@bridle/llm-openai"
    config: { provider: local, baseURL: "https://h.example/v1?token=${SECRET}", apiKeyEnv: null }
agent: { provider: local, model: m }
`)
    const out = await bridle(['run', 'hi'], app)
    expect(out.code).toBe(2)
    expect(out.stderr).toMatch(
      /^bridle: \S+bridle\.yaml: plugin "@bridle\/llm-openai": llm-openai: invalid config: baseURL: must not carry a credential in its query string \(parameter "token"\); give the key through apiKeyEnv\n$/,
    )
    expect(out.stderr + out.stdout).not.toContain(SECRET.slice(0, 8))
  })
})
