/**
 * `bridle run` on the Anthropic route, against the loopback Messages server: ANTHROPIC_API_KEY picks the route (as
 * DEEPSEEK_API_KEY picks DeepSeek), `--provider anthropic` picks it when both keys are set, the answer streams, every
 * request verifies from the stored log, `inspect --cache` shows the breakpoints Bridle placed beside what the
 * provider reported, and the key is nowhere in the output or the session file.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { answerEvents, startMockServer, type MockServer } from '@bridle/llm-anthropic/testing'
import { SessionStore } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { ViewSource } from '@bridle/view'
import { DEMO_YAML, bridle, makeApp, offlineEnv } from './helpers.js'

const KEY = 'sk-ant-cli-test-0123456789abcdef'

let server: MockServer | undefined
afterEach(async () => server?.close())

const usage = (read: number, write: number) => ({
  input_tokens: 12,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
})

describe('bridle run on the Anthropic route', () => {
  it('answers through a tool call; every request verifies; inspect --cache shows the placement', async () => {
    server = await startMockServer([
      {
        kind: 'sse',
        events: answerEvents(
          [
            { type: 'thinking', fragments: ['The name is in the manifest.'], signature: 'EqQBsig==' },
            { type: 'tool_use', id: 'toolu_01', name: 'read_file', fragments: ['{"path":"package.json"}'] },
          ],
          { usage: usage(0, 1480) },
        ),
      },
      {
        kind: 'sse',
        events: answerEvents([{ type: 'text', fragments: ['The package is named ', 'demo-app.'] }], {
          usage: usage(1480, 96),
        }),
      },
    ])
    // a system prompt above Sonnet 4.5's 1,024-token cache minimum, so the policy has something to place
    const rules = Array.from(
      { length: 60 },
      (_, i) => `Rule ${i + 1}: answer from the files, and name the file you read.`,
    )
    const app = makeApp(DEMO_YAML.replace('You answer questions', `${rules.join(' ')} You answer questions`))
    // both keys set: --provider anthropic picks the Anthropic route over DeepSeek
    const env = offlineEnv({
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: server.url,
      DEEPSEEK_API_KEY: 'sk-deepseek-unused-000',
    })
    const out = await bridle(['run', '--provider', 'anthropic', 'What is the package name?'], app, env)
    expect(out.stderr).toContain(`bridle: model anthropic/claude-sonnet-4-5 via ${server.url}`)
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('The package is named demo-app.')
    expect(server.requests).toHaveLength(2)
    expect(server.requests[0]!.path).toBe('/v1/messages')
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`)
    const second = server.requests[1]!.body as { messages: { content: { type: string; signature?: string }[] }[] }
    expect(second.messages[1]!.content[0]).toMatchObject({ type: 'thinking', signature: 'EqQBsig==' })

    const id = /^bridle: session (\S+)$/m.exec(out.stderr)![1]!
    // a second turn in a new process: the log shows the prefix held, so the first process's checkpoint is kept
    server.push({
      kind: 'sse',
      events: answerEvents([{ type: 'text', fragments: ['No dependencies.'] }], { usage: usage(1576, 40) }),
    })
    const resumed = await bridle(['run', '--provider', 'anthropic', '-s', id, 'Any dependencies?'], app, env)
    expect(resumed.code).toBe(0)
    const verify = await bridle(['inspect', id, '--verify'], app, env)
    expect(verify.code).toBe(0)
    expect(verify.stdout.match(/✓/g)).toHaveLength(3)
    const cache = await bridle(['inspect', id, '--cache'], app, env)
    expect(cache.code).toBe(0)
    // the system is above the minimum, the tools alone are not: the log says where and why
    expect(cache.stdout).toMatch(
      /breakpoints \(bridle\): system\[\.\.[\d,]+\] 1h \(stable-system, ~[\d,]+ tok\) · message 2\.1 1h \(next-request\+checkpoint, ~[\d,]+ tok\) · left out: tools \(prefix ~\d+ tokens is under the model's minimum of 1024\)/,
    )
    expect(cache.stdout).toMatch(/predicted read ~[\d,]+ tokens · provider read 1,480, wrote 96/)
    const turn2 = cache.stdout.slice(cache.stdout.indexOf('turn 2 step 1:'))
    expect(turn2).toMatch(/message 2\.1 1h \(checkpoint, ~[\d,]+ tok\)/)
    expect(turn2).not.toContain('miss')
    for (const text of [out.stdout, out.stderr, verify.stdout, cache.stdout]) expect(text).not.toContain(KEY)

    // the viewer's request page carries the same placement and figures
    const ctx = new Context()
    ctx.plugin(SessionStore)
    ctx.plugin(SessionJsonl, { root: join(app, 'sessions') })
    await new Promise((resolve) => setTimeout(resolve, 0))
    const source = new ViewSource(ctx.sessionPersistence!)
    const session = await source.session(id)
    const row = session.turns[0]!.steps[1]!.requests[0]!
    const view = (await source.request(id, row.seq))!
    expect(view.cache).toMatchObject({ policy: 'bridle', read: 1480, written: 96 })
    expect(view.cache!.breakpoints[0]).toMatch(/^system\[\.\.[\d,]+\] 1h \(stable-system/)
    expect(view.cache!.predicted).toBeGreaterThan(0)
    ctx.registry.get(SessionJsonl as never)?.dispose()
    const sessions = join(app, 'sessions')
    for (const file of readdirSync(sessions, { recursive: true }) as string[]) {
      if (file.endsWith('.jsonl')) expect(readFileSync(join(sessions, file), 'utf8')).not.toContain(KEY)
    }
  })

  it('ANTHROPIC_API_KEY alone picks the route; --provider anthropic without it is a usage error', async () => {
    const app = makeApp(DEMO_YAML)
    const small = await bridle(
      ['run', 'hi'],
      app,
      offlineEnv({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }),
    )
    expect(small.stderr).toContain('bridle: model anthropic/claude-sonnet-4-5 via http://127.0.0.1:9')
    const missing = await bridle(['run', '--provider', 'anthropic', 'hi'], app, offlineEnv())
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe('bridle: --provider anthropic needs ANTHROPIC_API_KEY\n')
    const unknown = await bridle(['run', '--provider', 'mistral', 'hi'], app, offlineEnv())
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe(
      'bridle: --provider mistral: unknown route; use one of openai-compatible, deepseek, anthropic\n',
    )
  })
})
