import {
  createAssistantMessage,
  createMessage,
  createToolResultMessage,
  createUserMessage,
  callId,
  reasoningEffortId,
  type CachePlan,
} from '@bridle/llm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { textAnswer } from '../src/testing.js'
import { TEST_KEY, bodyOf, boot, failureOf, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

const tools = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
  { name: 'ls', description: 'List', parameters: { type: 'object', properties: {} } },
]

describe('the Messages request', () => {
  it('posts to /v1/messages with the key, the API version and Bridle attribution', async () => {
    h = await boot([{ kind: 'sse', events: textAnswer(['a']) }])
    await run(h.ctx)
    const req = h.server.requests[0]!
    expect(req.method).toBe('POST')
    expect(req.path).toBe('/v1/messages')
    // SDK 1.17.0 sends the key as a bearer token
    expect(req.headers.authorization).toBe(`Bearer ${TEST_KEY}`)
    expect(req.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(req.headers['user-agent']).toMatch(/^bridle\//)
    expect(req.headers.accept).toBe('text/event-stream')
    expect(req.headers.traceparent).toBeUndefined()
  })

  it('ignores ANTHROPIC_BASE_URL, ANTHROPIC_AUTH_TOKEN and ANTHROPIC_API_KEY from the environment', async () => {
    vi.stubEnv('ANTHROPIC_BASE_URL', 'http://127.0.0.1:9')
    vi.stubEnv('ANTHROPIC_AUTH_TOKEN', 'ambient-token-123456')
    vi.stubEnv('ANTHROPIC_API_KEY', 'ambient-key-123456')
    h = await boot([{ kind: 'sse', events: textAnswer(['a']) }])
    expect((await run(h.ctx)).finish).toEqual({ kind: 'stop' })
    expect(h.server.requests[0]!.headers.authorization).toBe(`Bearer ${TEST_KEY}`)
  })

  it('sends model, materialized max_tokens, stream, system, tools in order, stop and temperature', async () => {
    h = await boot([{ kind: 'sse', events: textAnswer(['a']) }])
    await run(h.ctx, { system: 'You are Bridle.', tools, stop: ['END'], temperature: 0.2 })
    expect(bodyOf(h.server)).toEqual({
      model: 'mock-claude',
      max_tokens: 256,
      stream: true,
      system: [{ type: 'text', text: 'You are Bridle.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [
        { name: 'read_file', description: 'Read a file', input_schema: tools[0]!.parameters },
        { name: 'ls', description: 'List', input_schema: tools[1]!.parameters },
      ],
      stop_sequences: ['END'],
      temperature: 0.2,
    })
  })

  it('sends a tool loop as alternating turns, tool results first in their user turn', async () => {
    h = await boot([{ kind: 'sse', events: textAnswer(['a']) }])
    const call = createAssistantMessage({
      content: [
        { type: 'text', text: 'Reading.' },
        { type: 'tool-call', id: callId('toolu_1'), name: 'read_file', arguments: '{"path":"a"}' },
        { type: 'tool-call', id: callId('toolu_2'), name: 'ls', arguments: '' },
      ],
      source: { provider: 'mock', model: 'mock-claude' },
    })
    const messages = [
      createUserMessage('go'),
      call,
      createToolResultMessage({ callId: callId('toolu_1'), content: 'contents' }),
      createToolResultMessage({ callId: callId('toolu_2'), content: '', isError: true }),
      createMessage({
        role: 'user',
        content: [{ type: 'text', text: 'cwd: /w' }],
        source: { kind: 'plugin', plugin: 'ctx' },
      }),
    ]
    await run(h.ctx, { messages })
    expect(bodyOf(h.server).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } },
          { type: 'tool_use', id: 'toolu_2', name: 'ls', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'contents' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '(no output)', is_error: true },
          { type: 'text', text: 'cwd: /w' },
        ],
      },
    ])
  })

  it('leaves out reasoning another provider produced (the API refuses thinking without a signature)', async () => {
    h = await boot([{ kind: 'sse', events: textAnswer(['a']) }])
    const foreign = createAssistantMessage({
      content: [
        { type: 'reasoning', text: 'deepseek thoughts' },
        { type: 'text', text: 'answer' },
      ],
      source: { provider: 'deepseek', model: 'deepseek-reasoner' },
    })
    await run(h.ctx, { messages: [createUserMessage('q'), foreign, createUserMessage('more')] })
    expect((bodyOf(h.server).messages as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'answer' }],
    })
  })

  it('enables thinking with the effort budget, or adaptive thinking with output_config.effort', async () => {
    h = await boot([
      { kind: 'sse', events: textAnswer(['a']) },
      { kind: 'sse', events: textAnswer(['b']) },
    ])
    await run(h.ctx, { reasoningEffort: reasoningEffortId('high'), maxTokens: 8192 })
    expect(bodyOf(h.server, 0).thinking).toEqual({ type: 'enabled', budget_tokens: 4096 })
    await run(h.ctx, { model: 'mock-adaptive', reasoningEffort: reasoningEffortId('max') })
    expect(bodyOf(h.server, 1)).toMatchObject({
      thinking: { type: 'adaptive' },
      output_config: { effort: 'max' },
      max_tokens: 4096,
    })
  })

  it('caps a thinking budget below max_tokens, and refuses one with no room before any request', async () => {
    h = await boot([{ kind: 'sse', events: textAnswer(['a']) }])
    await run(h.ctx, { reasoningEffort: reasoningEffortId('high'), maxTokens: 3000 })
    expect(bodyOf(h.server, 0).thinking).toEqual({ type: 'enabled', budget_tokens: 2999 })
    const failure = failureOf((await run(h.ctx, { reasoningEffort: reasoningEffortId('low'), maxTokens: 1000 })).finish)
    expect(failure).toMatchObject({ code: 'INVALID_REQUEST' })
    expect(failure.message).toContain('leaves no room for a thinking budget')
    expect(h.server.requests).toHaveLength(1)
  })

  it('never puts cache_control on a thinking block: the marker goes on the last block that may carry it', async () => {
    h = await boot([{ kind: 'sse', events: textAnswer(['a']) }])
    const thought = createAssistantMessage({
      content: [
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: 'ok' },
      ],
      source: {
        provider: 'mock',
        model: 'mock-claude',
        replayState: { format: 'anthropic-messages/1', layout: [{ type: 'thinking', signature: 'S' }, 'block'] },
      },
    })
    const cache: CachePlan = {
      policy: 'test',
      breakpoints: [{ at: 'message', index: 1, block: 0, ttl: '5m', reason: 'next-request' }],
    }
    await run(h.ctx, { cache, messages: [createUserMessage('q'), thought, createUserMessage('more')] })
    expect((bodyOf(h.server).messages as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'S' },
        { type: 'text', text: 'ok', cache_control: { type: 'ephemeral' } },
      ],
    })
  })

  it('places cache_control where the plan says: last tool, a split system, a message block, with TTLs', async () => {
    h = await boot([{ kind: 'sse', events: textAnswer(['a']) }])
    const system = 'STABLE PART.\nVOLATILE PART.'
    const cache: CachePlan = {
      policy: 'test',
      breakpoints: [
        { at: 'tools', ttl: '1h', reason: 'tools' },
        { at: 'system', offset: 13, ttl: '1h', reason: 'stable-system' },
        { at: 'message', index: 1, block: 0, ttl: '5m', reason: 'next-request' },
      ],
    }
    await run(h.ctx, { system, tools, cache, messages: [createUserMessage('one'), createUserMessage('two')] })
    const body = bodyOf(h.server)
    expect((body.tools as Record<string, unknown>[])[0]).not.toHaveProperty('cache_control')
    expect((body.tools as Record<string, unknown>[])[1]!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' })
    expect(body.system).toEqual([
      { type: 'text', text: 'STABLE PART.\n', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'VOLATILE PART.' },
    ])
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two', cache_control: { type: 'ephemeral' } },
        ],
      },
    ])
  })

  it('refuses an image and a missing key before any request', async () => {
    h = await boot([])
    const image = createUserMessage([{ type: 'image', attachment: { id: 'a1', mediaType: 'image/png' } }])
    expect(failureOf((await run(h.ctx, { messages: [image] })).finish).code).toBe('UNSUPPORTED_CONTENT')
    vi.stubEnv('BRIDLE_TEST_ANTHROPIC_KEY', '')
    const missing = failureOf((await run(h.ctx)).finish)
    expect(missing).toMatchObject({ code: 'MISSING_CREDENTIAL' })
    expect(missing.message).toContain('BRIDLE_TEST_ANTHROPIC_KEY')
    expect(h.server.requests).toHaveLength(0)
  })
})
