/**
 * The secrets probe of issue 38, shared by cli-secrets-property.spec.ts (a few runs in `pnpm test`) and
 * cli-secrets-property.stress.ts (many): three credentials the CLI holds — the route's key (`PROBE_KEY`, sent as the
 * bearer), `DEEPSEEK_API_KEY`, and a configured `x-api-key` header — and a loopback server that puts them, split at
 * random points, into the answer's text and reasoning, a tool call's arguments, a `.env` the model reads with
 * `read_file`, an HTTP error body (around the 500-character cut) and an error beside `choices`. Then every place text
 * goes is read back: stdout and stderr of every command, the stored session (JSONL file or PostgreSQL rows), `inspect`
 * with every flag with and without the keys in the environment, `--html`, the viewer's answers, and the request bodies
 * the server received. No 8-character window of any key may appear anywhere, and `inspect --verify` must pass.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import fc from 'fast-check'
import { chunk, DONE, startMockServer, type MockBehaviour, type SseItem } from '@bridle/llm-openai/testing'
import { expect } from 'vitest'
import { bridle, makeApp, offlineEnv, sessionIdOf, type Finished } from './helpers.js'
import { startView } from './view-server.js'
import { splitAt as split } from '../../../tests/support/split-text.js'

/** Where the session is stored: the JSONL default, or a PostgreSQL schema of the run's throwaway server. */
export type ProbeBackend = { kind: 'jsonl' } | { kind: 'postgres'; url: string; schema: string }

export interface SecretCase {
  keys: [string, string, string]
  /** Cut points (any number, anywhere) for each streamed text. */
  textCuts: number[]
  reasoningCuts: number[]
  argCuts: number[]
  laterCuts: number[]
  /** Characters before the key in the HTTP error message (the adapter cuts messages at 500). */
  errorPad: number
  /** The SSE bytes of the first answer written in slices of this size (framing split anywhere), or whole. */
  chunkBytes: number | undefined
}

const KEY_BODY = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789_-'.split('')

/** Credentials as providers issue them: a prefix, then 20 to 48 characters of a key alphabet. */
export const keyArb = fc
  .tuple(
    fc.constantFrom('sk-', 'sk-proj-', 'gsk_', 'xai-', 'sk-or-v1-', 'AIza', ''),
    fc.string({ unit: fc.constantFrom(...KEY_BODY), minLength: 20, maxLength: 48 }),
  )
  .map(([prefix, body]) => prefix + body)

const cuts = fc.array(fc.nat({ max: 400 }), { maxLength: 12 })

export const secretCaseArb: fc.Arbitrary<SecretCase> = fc.record({
  keys: fc.uniqueArray(keyArb, { minLength: 3, maxLength: 3, selector: (k) => k.slice(0, 12) }) as fc.Arbitrary<
    [string, string, string]
  >,
  textCuts: cuts,
  reasoningCuts: cuts,
  argCuts: cuts,
  laterCuts: cuts,
  errorPad: fc.integer({ min: 470, max: 505 }),
  chunkBytes: fc.option(fc.integer({ min: 1, max: 97 }), { nil: undefined }),
})

/** The four answers the server gives, in order: a tool round, its follow-up, an HTTP error, an error beside choices. */
function script(c: SecretCase): MockBehaviour[] {
  const [k1, k2, k3] = c.keys
  const reasoning = split(`I should not repeat ${k2} but I will look at .env`, c.reasoningCuts)
  const text = split(`Your key is ${k1} and the header is ${k3}; reading .env now.`, c.textCuts)
  const args = split(JSON.stringify({ path: `${k3}.txt` }), c.argCuts)
  const first: SseItem[] = [
    chunk({ role: 'assistant', content: null, reasoning_content: '' }),
    ...reasoning.map((r) => chunk({ content: null, reasoning_content: r })),
    ...text.map((t) => chunk({ content: t })),
    chunk({
      tool_calls: [{ index: 0, id: 'call_env', type: 'function', function: { name: 'read_file', arguments: '' } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":".env"}' } }] }),
    chunk({
      tool_calls: [{ index: 1, id: 'call_key', type: 'function', function: { name: 'read_file', arguments: '' } }],
    }),
    ...args.map((a) => chunk({ tool_calls: [{ index: 1, function: { arguments: a } }] })),
    chunk({}, 'tool_calls', { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 }),
    DONE,
  ]
  const later = split(`The file said ${k1}, ${k2} and ${k3}. Done.`, c.laterCuts)
  const second: SseItem[] = [
    chunk({ role: 'assistant', content: '' }),
    ...later.map((t) => chunk({ content: t })),
    chunk({ content: '' }, 'stop', { prompt_tokens: 90, completion_tokens: 30, total_tokens: 120 }),
    DONE,
  ]
  const partial = split(`Partial ${k2} answer`, c.textCuts)
  return [
    { kind: 'sse', events: first, ...(c.chunkBytes === undefined ? {} : { chunkBytes: c.chunkBytes }) },
    { kind: 'sse', events: second },
    {
      kind: 'http-error',
      status: 500,
      body: { error: { message: `${'e'.repeat(c.errorPad)} ${k1} was refused` } },
    },
    {
      kind: 'sse',
      events: [
        chunk({ role: 'assistant', content: '' }),
        ...partial.map((t) => chunk({ content: t })),
        { ...chunk({ content: '' }, 'error'), error: { code: 502, message: `upstream rejected ${k3}` } },
        DONE,
      ],
    },
  ]
}

function appYaml(url: string, k3: string, backend: ProbeBackend): string {
  const persistence =
    backend.kind === 'jsonl'
      ? `  - package: "@bridle/session-jsonl"\n    config: { root: sessions }\n`
      : `  - package: "@bridle/session-postgres"\n    config: { connectionString: "${backend.url}", schema: ${backend.schema}, poolSize: 2 }\n`
  return `plugins:
  - "@bridle/plugin-workspace"
  - "@bridle/plugin-read-file"
${persistence}  - package: "@bridle/llm-openai"
    config:
      provider: probe
      baseURL: "${url}"
      apiKeyEnv: PROBE_KEY
      maxRetries: 0
      headers: { x-api-key: "${k3}" }
      models: [{ id: probe-model, contextWindow: 32768 }]
agent:
  provider: probe
  model: probe-model
  cwd: ./sample-project
`
}

/** Every row of the schema's tables, as text. */
async function postgresRows(url: string, schema: string): Promise<string> {
  const require = createRequire(createRequire(import.meta.url).resolve('@bridle/session-postgres/package.json'))
  // the CLI does not depend on pg; the backend package does, and its copy is the one the CLI used
  const pg = require('pg') as {
    Client: new (options: {
      connectionString: string
    }) => {
      connect(): Promise<void>
      query(sql: string, values?: unknown[]): Promise<{ rows: unknown[] }>
      end(): Promise<void>
    }
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const tables = await client.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [
      schema,
    ])
    let text = ''
    for (const { table_name } of tables.rows as { table_name: string }[]) {
      const rows = await client.query(`SELECT t::text AS row FROM "${schema}"."${table_name}" t`)
      for (const { row } of rows.rows as { row: string }[]) text += `${row}\n`
    }
    return text
  } finally {
    await client.end()
  }
}

/** Every text a person or a process could read after the three runs, by where it came from. */
interface Observed {
  [where: string]: string
}

/** Runs one case end to end and checks it. Returns the number of places read. */
export async function probeSecrets(c: SecretCase, backend: ProbeBackend): Promise<number> {
  const [k1, k2, k3] = c.keys
  const server = await startMockServer(script(c))
  try {
    const app = makeApp(appYaml(server.url, k3, backend))
    writeFileSync(join(app, 'sample-project', '.env'), `PROBE_KEY=${k1}\nDEEPSEEK_API_KEY=${k2}\nX_API_KEY=${k3}\n`)
    const withKeys = offlineEnv({ PROBE_KEY: k1, DEEPSEEK_API_KEY: k2 })
    const withoutKeys = offlineEnv()
    const seen: Observed = {}
    const keep = (where: string, out: Finished) => {
      seen[`${where} stdout`] = out.stdout
      seen[`${where} stderr`] = out.stderr
    }

    const first = await bridle(['run', 'Which keys does this project use?'], app, withKeys)
    keep('run 1', first)
    expect(first.code, first.stderr).toBe(0)
    const id = sessionIdOf(first.stderr)
    const second = await bridle(['run', '--session', id, 'Again?'], app, withKeys)
    keep('run 2', second)
    expect(second.code).toBe(1)
    const third = await bridle(['run', '--session', id, 'Once more?'], app, withKeys)
    keep('run 3', third)
    expect(third.code).toBe(1)

    const flagSets = [
      ['--events', '--cache', '--verify'],
      ['--json', '--events', '--cache', '--verify'],
      ['--step', '1.1', '--events'],
      ['--step', '1.2', '--json'],
      ['--step', '2.1', '--events'],
      ['--step', '3.1', '--json', '--events'],
    ]
    for (const [label, env] of [
      ['with keys', withKeys],
      ['without keys', withoutKeys],
    ] as const) {
      const views = await Promise.all(flagSets.map((flags) => bridle(['inspect', id, ...flags], app, env)))
      views.forEach((out, i) => keep(`inspect ${flagSets[i]!.join(' ')} (${label})`, out))
      for (const i of [0, 1]) expect(views[i]!.code, views[i]!.stderr).toBe(0)
      expect(views[0]!.stdout).toMatch(/verification passed: \d+ requests match their digests/)
    }
    const html = join(app, 'session.html')
    const page = await bridle(['inspect', id, '--html', html], app, withKeys)
    keep('inspect --html', page)
    expect(page.code, page.stderr).toBe(0)
    seen['--html file'] = readFileSync(html, 'utf8')

    const view = await startView([id], app)
    try {
      const base = new URL(view.url)
      const get = async (path: string) => (await fetch(new URL(path, base))).text()
      seen['view /api/sessions'] = await get('/api/sessions')
      const session = await get(`/api/sessions/${id}`)
      seen['view session'] = session
      const turns = (JSON.parse(session) as { turns: { steps: { requests: { seq: number }[] }[] }[] }).turns
      for (const seq of turns.flatMap((t) => t.steps.flatMap((s) => s.requests.map((r) => r.seq))))
        seen[`view request ${seq}`] = await get(`/api/sessions/${id}/requests/${seq}`)
    } finally {
      seen['view stderr'] = (await view.stop()).stderr
    }

    if (backend.kind === 'jsonl') {
      for (const file of readdirSync(join(app, 'sessions')))
        seen[`stored ${file}`] = readFileSync(join(app, 'sessions', file), 'utf8')
    } else seen['stored rows'] = await postgresRows(backend.url, backend.schema)
    server.requests.forEach((request, i) => {
      seen[`request ${i + 1} body`] = request.rawBody
    })

    // the keys were really there to be filtered: the bearer went out, the log shows where they were
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(server.requests.map(() => `Bearer ${k1}`))
    expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual(server.requests.map(() => k3))
    const stored = Object.entries(seen).find(([where]) => where.startsWith('stored'))![1]
    expect(stored).toContain('[redacted]')
    for (const [where, text] of Object.entries(seen)) expectNoWindow(where, text, c.keys)
    return Object.keys(seen).length
  } finally {
    await server.close()
  }
}

/** Fails naming the place and the key when any 8-character window of a key appears in `text`. */
export function expectNoWindow(where: string, text: string, keys: readonly string[]): void {
  for (const key of keys) {
    for (let i = 0; i + 8 <= key.length; i++) {
      const window = key.slice(i, i + 8)
      if (text.includes(window)) {
        const at = text.indexOf(window)
        expect.fail(
          `${where}: "${window}" (characters ${i}-${i + 7} of a key) appears: …${text.slice(Math.max(0, at - 60), at + 60)}…`,
        )
      }
    }
  }
}
