/**
 * A whole agent turn through `@bridle/agent-loop` with `@bridle/llm-anthropic` as the model route, against the
 * loopback Messages server (named SSE events over a real socket, no network): step 1 thinks and calls a tool, the
 * loop runs it, step 2 answers. The thinking block's signature goes back byte for byte; the cache breakpoints the
 * adapter placed are in the log (`request/cache`), on the wire (`cache_control`), and covered by the digests.
 */
import { AgentLoop } from '@bridle/agent-loop'
import { LlmRuntime, createUserMessage, type CachePlan } from '@bridle/llm'
import * as llmAnthropic from '@bridle/llm-anthropic'
import { answerEvents, startMockServer, textAnswer, type MockServer } from '@bridle/llm-anthropic/testing'
import { SessionStore, reconstructRequest, verifyDigests, type SessionEvent } from '@bridle/session'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'

let server: MockServer | undefined
afterEach(async () => {
  vi.unstubAllEnvs()
  await server?.close()
  server = undefined
})

const SIGNATURE = 'EqQBCkYIARgCKkD/+sig\\"==' + 'A'.repeat(200)
const THINKING = 'The user wants the name.\nRead "package.json" first.'

interface WireBlock {
  type: string
  cache_control?: { type: string; ttl?: string }
  [key: string]: unknown
}
interface WireBody {
  system: WireBlock[]
  tools: WireBlock[]
  messages: { role: string; content: WireBlock[] }[]
}

describe('agent turn over the Anthropic adapter', () => {
  it('thinking survives the tool loop byte for byte; breakpoints are logged, sent and digested', async () => {
    vi.stubEnv('BRIDLE_TEST_ANTHROPIC_KEY', 'sk-ant-agent-turn-0001')
    server = await startMockServer([
      {
        kind: 'sse',
        events: answerEvents(
          [
            { type: 'thinking', fragments: [THINKING.slice(0, 10), THINKING.slice(10)], signature: SIGNATURE },
            { type: 'tool_use', id: 'toolu_01', name: 'read_file', fragments: ['{"path":', '"package.json"}'] },
          ],
          { usage: { input_tokens: 900, cache_creation_input_tokens: 700, cache_read_input_tokens: 0 } },
        ),
      },
      {
        kind: 'sse',
        events: textAnswer(['It is ', 'demo-app.'], {
          usage: { input_tokens: 40, cache_creation_input_tokens: 90, cache_read_input_tokens: 700 },
        }),
        chunkBytes: 9,
      },
    ])
    const ctx = new Context()
    ctx.plugin(SessionStore)
    ctx.plugin(LlmRuntime)
    ctx.plugin(SystemPrompt, {})
    ctx.plugin(ToolRegistry)
    ctx.plugin(AgentLoop, {})
    ctx.plugin(llmAnthropic, {
      provider: 'mock',
      baseURL: server.url,
      apiKeyEnv: 'BRIDLE_TEST_ANTHROPIC_KEY',
      maxRetries: 0,
      models: [{ id: 'mock-claude', contextWindow: 200_000, defaultMaxTokens: 512, minCacheableTokens: 1 }],
    })
    ctx.tools.register({
      name: 'read_file',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      concurrencySafe: true,
      execute: () => '{ "name": "demo-app" }',
    })

    const agent = ctx.agentLoop.create({ provider: 'mock', model: 'mock-claude' })
    agent.followup(createUserMessage('What is the package name?'))
    await agent.whenIdle()

    expect(server.requests).toHaveLength(2)
    const [first, second] = server.requests.map((r) => r.body as WireBody)
    expect(first!.system.map((b) => b.text).join('')).toContain('You are an AI agent powered by Bridle.')
    // step 2 replays the thinking block exactly as it came, before the tool call
    expect(second!.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: THINKING, signature: SIGNATURE },
        { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'package.json' } },
      ],
    })
    expect(server.requests[1]!.rawBody).toContain(JSON.stringify(SIGNATURE))

    const events = agent.session.events as readonly SessionEvent[]
    const plans = events.filter((e) => e.type === 'request/cache').map((e) => (e.data as { plan: CachePlan }).plan)
    expect(plans).toHaveLength(2)
    // request 1: tools and the whole system (nothing changed yet) for an hour, the prompt for the next request and
    // as the first long-lived checkpoint; in request 2 the history grew more than 15 % past it: a new checkpoint
    expect(plans[0]!.breakpoints.map((b) => [b.at, b.reason, b.ttl])).toEqual([
      ['tools', 'tools', '1h'],
      ['system', 'stable-system', '1h'],
      ['message', 'next-request+checkpoint', '1h'],
    ])
    expect(plans[1]!.breakpoints.map((b) => [b.at, b.reason, b.ttl])).toEqual([
      ['tools', 'tools', '1h'],
      ['system', 'stable-system', '1h'],
      ['message', 'next-request+checkpoint', '1h'],
    ])
    // what the log says is what went on the wire
    expect(first!.tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' })
    expect(first!.system.at(-1)!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' })
    expect(first!.messages[0]!.content.at(-1)!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' })
    expect(second!.messages[2]!.content.at(-1)).toMatchObject({
      type: 'tool_result',
      cache_control: { type: 'ephemeral' },
    })

    // every request verifies, the plan is part of the rebuilt request, and the digest covers it
    const verdicts = verifyDigests(events)
    expect(verdicts.map((v) => v.ok)).toEqual([true, true])
    expect(reconstructRequest(events, { turn: 1, step: 2 }).request.cache).toEqual(plans[1])
    const digest = events.find((e) => e.type === 'request/digest')!.data as { cache?: string }
    expect(digest.cache).toMatch(/^[0-9a-f]{64}$/)
    const tampered = events.map((e) =>
      e.type === 'request/cache' && e.data.step === 2
        ? { ...e, data: { ...e.data, plan: { ...e.data.plan, breakpoints: e.data.plan.breakpoints.slice(1) } } }
        : e,
    )
    const bad = verifyDigests(tampered as readonly SessionEvent[])
    expect(bad.map((v) => [v.ok, v.mismatched])).toEqual([
      [true, []],
      [false, ['cache', 'request']],
    ])
  })
})
