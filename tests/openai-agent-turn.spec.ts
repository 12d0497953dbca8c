/**
 * A whole agent turn through `@bridle/agent-loop` with `@bridle/llm-openai` as the model route,
 * against the loopback mock server (real SSE over a real socket, no network): step 1 streams a
 * tool call split across many chunks, the loop runs the tool, step 2 streams the answer.
 */
import { Context } from 'cordis'
import { AgentLoop } from '@bridle/agent-loop'
import { LlmRuntime, createUserMessage } from '@bridle/llm'
import * as llmOpenai from '@bridle/llm-openai'
import { startMockServer, textEvents, toolCallEvents, type MockServer } from '@bridle/llm-openai/testing'
import { SessionStore } from '@bridle/session'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { afterEach, describe, expect, it, vi } from 'vitest'

let server: MockServer | undefined
afterEach(async () => {
  vi.unstubAllEnvs()
  await server?.close()
  server = undefined
})

interface WireBody {
  model: string
  stream: boolean
  messages: { role: string; content: string; tool_calls?: unknown[]; tool_call_id?: string }[]
  tools?: { function: { name: string } }[]
  max_tokens?: number
}

describe('agent turn over the OpenAI-compatible adapter', () => {
  it('tool call → tool result → answer, with exactly what was sent recorded', async () => {
    vi.stubEnv('BRIDLE_TEST_KEY', 'sk-agent-turn')
    server = await startMockServer([
      {
        kind: 'sse',
        events: toolCallEvents(
          [{ id: 'call_0', name: 'read_file', argFragments: ['{"pa', 'th": "pack', 'age.json"}'] }],
          {
            usage: { prompt_tokens: 120, completion_tokens: 12, prompt_cache_hit_tokens: 64 },
          },
        ),
      },
      { kind: 'sse', events: textEvents(['The package is ', 'named demo-app.']), chunkBytes: 7 },
    ])

    const ctx = new Context()
    ctx.plugin(SessionStore)
    ctx.plugin(LlmRuntime)
    ctx.plugin(SystemPrompt, {})
    ctx.plugin(ToolRegistry)
    ctx.plugin(AgentLoop, {})
    ctx.plugin(llmOpenai, {
      provider: 'mock',
      baseURL: server.url,
      apiKeyEnv: 'BRIDLE_TEST_KEY',
      maxRetries: 0,
      models: [{ id: 'mock-chat', contextWindow: 8192, defaultMaxTokens: 256 }],
    })
    const reads: string[] = []
    ctx.tools.register({
      name: 'read_file',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      concurrencySafe: true,
      execute: (args: { path: string }) => {
        reads.push(args.path)
        return '{ "name": "demo-app" }'
      },
    })

    const agent = ctx.agentLoop.create({ provider: 'mock', model: 'mock-chat' })
    agent.followup(createUserMessage('What is the package name?'))
    await agent.whenIdle()

    expect(reads).toEqual(['package.json'])
    expect(server.requests).toHaveLength(2)
    const [first, second] = server.requests.map((r) => r.body as WireBody)
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/chat/completions' })
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-agent-turn')
    expect(first).toMatchObject({ model: 'mock-chat', stream: true, max_tokens: 256 })
    expect(first!.tools?.map((t) => t.function.name)).toEqual(['read_file'])
    expect(first!.messages.at(-1)).toEqual({ role: 'user', content: 'What is the package name?' })
    expect(first!.messages[0]!.role).toBe('system')
    expect(first!.messages[0]!.content).toContain('You are an AI agent powered by Bridle.')

    // The second request replays the assistant tool call and the tool result right after it.
    const tail = second!.messages.slice(-2)
    expect(tail[0]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'call_0', type: 'function', function: { name: 'read_file', arguments: '{"path": "package.json"}' } },
      ],
    })
    expect(tail[1]).toMatchObject({ role: 'tool', tool_call_id: 'call_0' })
    expect(tail[1]!.content).toContain('demo-app')
    expect(second!.messages.slice(0, first!.messages.length)).toEqual(first!.messages)

    const events = agent.session.events
    const answers = events
      .filter((e) => e.type === 'assistant/message')
      .map((e) => (e.data as { message: { content: readonly unknown[] } }).message.content)
    expect(answers.at(-1)).toEqual([{ type: 'text', text: 'The package is named demo-app.' }])
    const usage = events
      .filter((e) => e.type === 'assistant/chunk' && (e.data as { chunk: { type: string } }).chunk.type === 'usage')
      .map((e) => (e.data as { chunk: { usage: unknown } }).chunk.usage)
    expect(usage[0]).toEqual({ inputTokens: 56, outputTokens: 12, cacheReadTokens: 64 })
    const end = events.filter((e) => e.type === 'turn/end').at(-1)
    expect((end!.data as { reason: { kind: string } }).reason.kind).toBe('completed')
    expect(server.remaining()).toBe(0)
    expect(server.unexpected).toBe(0)
  })
})
