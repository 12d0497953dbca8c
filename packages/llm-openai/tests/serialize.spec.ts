import './setup.js'
import {
  LlmError,
  callId,
  createAssistantMessage,
  createMessage,
  createToolResultMessage,
  createUserMessage,
  type GenerateOptions,
  type ToolSchema,
} from '@bridle/llm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildRequestBody, resolveConfig, serializeMessages } from '../src/index.js'

const config = resolveConfig({
  provider: 'mock',
  displayName: 'Mock',
  baseURL: 'http://127.0.0.1:1/v1',
  apiKeyEnv: null,
  models: [{ id: 'mock-chat', contextWindow: 8192, extraBody: { top_k: 5, shared: 'model' } }],
  extraBody: { shared: 'config', seed: 7 },
})

const base = (partial: Partial<GenerateOptions> = {}): GenerateOptions => ({
  provider: 'mock',
  model: 'mock-chat',
  messages: [createUserMessage('hi')],
  ...partial,
})

const tool = (name: string): ToolSchema => ({
  name,
  description: `the ${name} tool`,
  parameters: { type: 'object', properties: {} },
})

describe('request body', () => {
  it('sends only what is set: no null fields, no tools key when empty, no tool_choice', () => {
    const body = buildRequestBody(
      base({ tools: [] }),
      resolveConfig({ baseURL: 'http://127.0.0.1:1', apiKeyEnv: null }),
    )
    expect(body).toEqual({
      model: 'mock-chat',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    expect(JSON.stringify(body)).not.toContain('null')
  })

  it('keeps tool order and maps each to a function tool', () => {
    const names = ['zeta', 'alpha', 'mid', 'beta']
    const body = buildRequestBody(base({ tools: names.map(tool) }), config)
    const tools = body.tools as { type: string; function: { name: string; description: string } }[]
    expect(tools.map((t) => t.function.name)).toEqual(names)
    expect(tools[0]).toEqual({
      type: 'function',
      function: { name: 'zeta', description: 'the zeta tool', parameters: { type: 'object', properties: {} } },
    })
    expect(body).not.toHaveProperty('tool_choice')
    expect(body).not.toHaveProperty('parallel_tool_calls')
  })

  it('property: tools are sent in exactly the given order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z_]{1,12}$/), { maxLength: 30 }), (names) => {
        const body = buildRequestBody(base({ tools: names.map(tool) }), config)
        if (names.length === 0) expect(body).not.toHaveProperty('tools')
        else expect((body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(names)
      }),
    )
  })

  it('maps sampling knobs, the max-tokens field name, effort, and merges extraBody (model wins)', () => {
    const body = buildRequestBody(
      base({ temperature: 0.2, stop: ['END'], maxTokens: 99, reasoningEffort: 'high' as never }),
      config,
    )
    expect(body).toMatchObject({ temperature: 0.2, stop: ['END'], max_tokens: 99, reasoning_effort: 'high' })
    expect(body).toMatchObject({ seed: 7, top_k: 5, shared: 'model' })
    const other = buildRequestBody(base({ maxTokens: 10, stop: [] }), {
      ...config,
      maxTokensField: 'max_completion_tokens',
    })
    expect(other).toMatchObject({ max_completion_tokens: 10 })
    expect(other).not.toHaveProperty('max_tokens')
    expect(other).not.toHaveProperty('stop')
    const unlisted = buildRequestBody(base({ model: 'other' }), config)
    expect(unlisted).toMatchObject({ shared: 'config', seed: 7 })
    expect(unlisted).not.toHaveProperty('top_k')
  })

  it('omits stream_options when includeUsage is false', () => {
    expect(buildRequestBody(base(), { ...config, includeUsage: false })).not.toHaveProperty('stream_options')
  })
})

describe('messages', () => {
  const call = (id: string, name: string, args: string) => ({
    type: 'tool-call' as const,
    id: callId(id),
    name,
    arguments: args,
  })

  it('puts the system prompt first and maps system history messages', () => {
    const wire = serializeMessages(
      base({
        system: 'You are terse.',
        messages: [
          createMessage({
            role: 'system',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
            source: { kind: 'user' },
          }),
          createUserMessage('hi'),
        ],
      }),
      config,
    )
    expect(wire).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'system', content: 'a\nb' },
      { role: 'user', content: 'hi' },
    ])
    expect(serializeMessages(base({ system: '' }), config)[0]).toEqual({ role: 'user', content: 'hi' })
  })

  it('assistant tool turns: content "" (never null), tool_calls in block order, "{}" for blank arguments', () => {
    const assistant = createAssistantMessage({
      content: [call('c1', 'read_file', '{"path":"a"}'), call('c2', 'list', '  ')],
      source: { provider: 'mock', model: 'mock-chat' },
    })
    const [wire] = serializeMessages(base({ messages: [assistant] }), config)
    expect(wire).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
        { id: 'c2', type: 'function', function: { name: 'list', arguments: '{}' } },
      ],
    })
    expect(assistant.content[1]).toMatchObject({ arguments: '  ' })
  })

  it('tool results go first as role "tool", then the user text; empty output → "(no output)"', () => {
    const mixed = createUserMessage([
      { type: 'text', text: 'and also' },
      { type: 'tool-result', toolCallId: callId('c1'), content: [{ type: 'text', text: 'file body' }] },
      { type: 'tool-result', toolCallId: callId('c2'), content: [], isError: true },
    ])
    const only = createToolResultMessage({ callId: callId('c3'), content: 'x' })
    const empty = createUserMessage([])
    expect(serializeMessages(base({ messages: [mixed, only, empty] }), config)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'file body' },
      { role: 'tool', tool_call_id: 'c2', content: '(no output)' },
      { role: 'user', content: 'and also' },
      { role: 'tool', tool_call_id: 'c3', content: 'x' },
      { role: 'user', content: '' },
    ])
  })

  it('replays reasoning only on same-route tool-call turns, and never with reasoningReplay "never"', () => {
    const thought = { type: 'reasoning' as const, text: 'think' }
    const sameToolTurn = createAssistantMessage({
      content: [thought, { type: 'text', text: 'ok' }, call('c1', 'f', '{}')],
      source: { provider: 'mock', model: 'm' },
    })
    const sameTextTurn = createAssistantMessage({
      content: [thought, { type: 'text', text: 'hi' }],
      source: { provider: 'mock', model: 'm' },
    })
    const otherRoute = createAssistantMessage({
      content: [thought, call('c2', 'f', '{}')],
      source: { provider: 'other', model: 'm' },
    })
    const blank = createAssistantMessage({
      content: [{ type: 'reasoning', text: '' }, call('c3', 'f', '{}')],
      source: { provider: 'mock', model: 'm' },
    })
    const wire = serializeMessages(base({ messages: [sameToolTurn, sameTextTurn, otherRoute, blank] }), config)
    expect(wire[0]).toMatchObject({ role: 'assistant', content: 'ok', reasoning_content: 'think' })
    expect(wire[1]).toEqual({ role: 'assistant', content: 'hi' })
    expect(wire[2]).not.toHaveProperty('reasoning_content')
    expect(wire[3]).not.toHaveProperty('reasoning_content')
    const never = serializeMessages(base({ messages: [sameToolTurn] }), { ...config, reasoningReplay: 'never' })
    expect(never[0]).not.toHaveProperty('reasoning_content')
  })

  it('refuses images anywhere, including inside tool results, before any I/O', () => {
    const image = { type: 'image' as const, attachment: { id: 'img1', mediaType: 'image/png' } }
    for (const message of [
      createUserMessage([image]),
      createUserMessage([{ type: 'tool-result', toolCallId: callId('c'), content: [image] }]),
    ]) {
      let thrown: unknown
      try {
        serializeMessages(base({ messages: [message] }), config)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(LlmError)
      expect((thrown as LlmError).message).toBe('Mock route accepts text only')
      expect((thrown as LlmError).code).toBe('UNSUPPORTED_CONTENT')
    }
  })
})
