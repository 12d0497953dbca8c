import {
  attributionHeaders,
  callId,
  createAssistantMessage,
  createToolResultMessage,
  createUserMessage,
  type ToolSchema,
} from '@bridle/llm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { textEvents } from '../src/testing.js'
import { TEST_KEY, boot, failureOf, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

const ok = () => ({ kind: 'sse' as const, events: textEvents(['ok']) })
const body = (i = 0) => h!.server.requests[i]!.body as Record<string, unknown>
const tool = (name: string): ToolSchema => ({ name, description: `${name} tool`, parameters: { type: 'object' } })

describe('what is sent', () => {
  it('stream, stream_options, model, and max_tokens materialized from the catalog by the runtime', async () => {
    h = await boot([ok()])
    await run(h.ctx)
    expect(body()).toEqual({
      model: 'mock-chat',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 256,
    })
  })

  it('an explicit maxTokens wins; max_completion_tokens variant; temperature, stop, reasoning_effort', async () => {
    h = await boot([ok(), ok()], {
      maxTokensField: 'max_completion_tokens',
      models: [{ id: 'mock-chat', contextWindow: 8192, defaultMaxTokens: 256, reasoningEfforts: ['low', 'high'] }],
    })
    await run(h.ctx, { maxTokens: 32, temperature: 0.5, stop: ['STOP'], reasoningEffort: 'high' as never })
    expect(body(0)).toMatchObject({
      max_completion_tokens: 32,
      temperature: 0.5,
      stop: ['STOP'],
      reasoning_effort: 'high',
    })
    expect(body(0)).not.toHaveProperty('max_tokens')
    await run(h.ctx)
    expect(body(1)).toMatchObject({ max_completion_tokens: 256 })
    expect(body(1)).not.toHaveProperty('reasoning_effort')
    expect(body(1)).not.toHaveProperty('temperature')
  })

  it('an effort the model does not advertise fails before any request (DeepSeek catalog)', async () => {
    h = await boot([], { models: [{ id: 'mock-chat', contextWindow: 8192 }] })
    const r = await run(h.ctx, { reasoningEffort: 'high' as never })
    expect(failureOf(r.finish).code).toBe('UNSUPPORTED_REASONING_EFFORT')
    expect(h.server.requests).toHaveLength(0)
  })

  it('extraBody: config first, then the model entry (model wins per key)', async () => {
    h = await boot([ok()], {
      extraBody: { chat_template_kwargs: { enable_thinking: false }, seed: 1 },
      models: [{ id: 'mock-chat', contextWindow: 8192, extraBody: { seed: 2, top_k: 3 } }],
    })
    await run(h.ctx)
    expect(body()).toMatchObject({ chat_template_kwargs: { enable_thinking: false }, seed: 2, top_k: 3 })
  })

  it('tools in the given order; no tools key when empty', async () => {
    h = await boot([ok(), ok()])
    const names = ['write_file', 'read_file', 'bash', 'apply_patch', 'grep']
    await run(h.ctx, { tools: names.map(tool) })
    expect((body(0).tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(names)
    expect(body(0)).not.toHaveProperty('tool_choice')
    await run(h.ctx, { tools: [] })
    expect(body(1)).not.toHaveProperty('tools')
  })

  it('a tool turn: system first, assistant content "" with tool_calls, tool messages before user text, reasoning replayed', async () => {
    h = await boot([ok()])
    const assistant = createAssistantMessage({
      content: [
        { type: 'reasoning', text: 'need the file' },
        { type: 'tool-call', id: callId('call_1'), name: 'read_file', arguments: '' },
      ],
      source: { provider: 'mock', model: 'mock-chat' },
    })
    const result = createUserMessage([
      { type: 'tool-result', toolCallId: callId('call_1'), content: [] },
      { type: 'text', text: 'now summarize' },
    ])
    await run(h.ctx, { system: 'Be brief.', messages: [createUserMessage('read a'), assistant, result] })
    expect(body().messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'read a' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
        reasoning_content: 'need the file',
      },
      { role: 'tool', tool_call_id: 'call_1', content: '(no output)' },
      { role: 'user', content: 'now summarize' },
    ])
  })

  it('reasoning of another route and with reasoningReplay "never" is not sent', async () => {
    const turn = (provider: string) =>
      createAssistantMessage({
        content: [
          { type: 'reasoning', text: 'secret' },
          { type: 'tool-call', id: callId('c'), name: 'f', arguments: '{}' },
        ],
        source: { provider, model: 'x' },
      })
    const messages = (provider: string) => [
      createUserMessage('q'),
      turn(provider),
      createToolResultMessage({ callId: callId('c'), content: 'r' }),
    ]
    h = await boot([ok()])
    await run(h.ctx, { messages: messages('other') })
    expect(h.server.requests[0]!.rawBody).not.toContain('reasoning_content')
    await teardown(h)
    h = await boot([ok()], { reasoningReplay: 'never' })
    await run(h.ctx, { messages: messages('mock') })
    expect(h.server.requests[0]!.rawBody).not.toContain('reasoning_content')
  })

  it('headers: exact user-agent, accept, bearer key, configured extras', async () => {
    h = await boot([ok()], { headers: { 'x-team': 'core' } })
    await run(h.ctx)
    const headers = h.server.requests[0]!.headers
    expect(headers['user-agent']).toBe(attributionHeaders()['user-agent'])
    expect(headers['user-agent']).toMatch(/^bridle\/\d+\.\d+\.\d+/)
    expect(headers.accept).toBe('text/event-stream')
    expect(headers['content-type']).toBe('application/json')
    expect(headers.authorization).toBe(`Bearer ${TEST_KEY}`)
    expect(headers['x-team']).toBe('core')
    expect(headers).not.toHaveProperty('openai-organization')
  })

  it('keyless: no authorization header; ambient OPENAI_* variables are ignored', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-ambient-must-not-leak')
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:9/never')
    vi.stubEnv('OPENAI_ORG_ID', 'org-ambient')
    vi.stubEnv('OPENAI_PROJECT_ID', 'proj-ambient')
    h = await boot([ok()], { apiKeyEnv: null })
    const r = await run(h.ctx)
    expect(r.finish).toEqual({ kind: 'stop' })
    const req = h.server.requests[0]!
    expect(req.headers).not.toHaveProperty('authorization')
    expect(JSON.stringify(req.headers)).not.toMatch(/ambient/)
  })

  it('an ambient OPENAI_API_KEY never replaces the configured key', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-ambient-must-not-leak')
    h = await boot([ok()])
    await run(h.ctx)
    expect(h.server.requests[0]!.headers.authorization).toBe(`Bearer ${TEST_KEY}`)
  })

  it('a trailing slash on baseURL is tolerated', async () => {
    h = await boot([ok()], (url) => ({ baseURL: `${url}/` }))
    expect((await run(h.ctx)).finish).toEqual({ kind: 'stop' })
    expect(h.server.requests[0]!.path).toBe('/chat/completions')
  })
})
