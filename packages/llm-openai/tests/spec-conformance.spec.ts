/**
 * Black-box conformance with the package's documented contract (README.md): plugin exports, config defaults and
 * errors, exact error wording, the HTTP status table, the worked translation examples and the mock server. Imports
 * only the public entries.
 */
import './setup.js'
import { createServer } from 'node:net'
import { readFileSync } from 'node:fs'
import {
  BlockAssembler,
  ConfigError,
  LlmRuntime,
  callId,
  createAssistantMessage,
  createToolResultMessage,
  createUserMessage,
  reasoningEffortId,
  streamGrammarViolations,
  type FinishReason,
  type GenerateOptions,
  type StreamChunk,
} from '@bridle/llm'
import * as llmOpenai from '@bridle/llm-openai'
import { DEEPSEEK_BASE_URL, DEEPSEEK_MODELS, OpenAICompatAdapter, resolveConfig } from '@bridle/llm-openai'
import {
  DONE,
  KEEPALIVE,
  chunk,
  reasoningEvents,
  startMockServer,
  textEvents,
  toolCallEvents,
  usageOnlyChunk,
  type MockBehaviour,
  type MockServer,
} from '@bridle/llm-openai/testing'
import { Context } from 'cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { takeLogLines } from '../../../tests/support/logs.js'

const KEY = 'sk-conformance-0123'
let server: MockServer | undefined

afterEach(async () => {
  vi.unstubAllEnvs()
  await server?.close()
  server = undefined
})

async function boot(script: MockBehaviour[], overrides: Record<string, unknown> = {}) {
  vi.stubEnv('BRIDLE_TEST_KEY', KEY)
  server = await startMockServer(script)
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  ctx.plugin(llmOpenai, {
    provider: 'mock',
    baseURL: server.url,
    apiKeyEnv: 'BRIDLE_TEST_KEY',
    maxRetries: 0,
    models: [{ id: 'mock-chat', contextWindow: 8192, defaultMaxTokens: 256 }],
    ...overrides,
  })
  expect(ctx.llm.hasProvider((overrides.provider as string | undefined) ?? 'mock')).toBe(true)
  return { ctx, server }
}

async function run(ctx: Context, partial: Partial<GenerateOptions> = {}) {
  const options: GenerateOptions = {
    provider: 'mock',
    model: 'mock-chat',
    messages: [createUserMessage('hi')],
    ...partial,
  }
  const assembler = new BlockAssembler()
  const chunks: StreamChunk[] = []
  for await (const c of ctx.llm.stream(options)) {
    chunks.push(c)
    assembler.push(c)
  }
  expect(streamGrammarViolations(chunks)).toEqual([])
  return {
    chunks,
    finish: assembler.finish,
    message: assembler.message({ provider: options.provider, model: options.model }),
  }
}

function failure(finish: FinishReason) {
  if (finish.kind !== 'error' && finish.kind !== 'aborted')
    throw new Error(`expected a failed finish, got ${finish.kind}`)
  return finish.failure
}

function configError(raw: unknown): ConfigError {
  try {
    resolveConfig(raw)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error('expected a ConfigError')
}

describe('plugin surface and configuration', () => {
  it('exports the functional plugin: name, inject, ConfigSchema, Config, apply', () => {
    expect(llmOpenai.name).toBe('llm-openai')
    expect(llmOpenai.inject).toEqual(['llm'])
    expect(typeof llmOpenai.ConfigSchema.safeParse).toBe('function')
    expect(typeof llmOpenai.Config).toBe('function')
    expect(typeof llmOpenai.apply).toBe('function')
    expect(typeof OpenAICompatAdapter).toBe('function')
    expect(llmOpenai.Config({})).toEqual(resolveConfig({}))
  })

  it('resolveConfig({}) gives the DeepSeek defaults', () => {
    expect(DEEPSEEK_BASE_URL).toBe('https://api.deepseek.com')
    expect(resolveConfig({})).toEqual({
      provider: 'deepseek',
      displayName: 'DeepSeek',
      baseURL: 'https://api.deepseek.com',
      apiKeyEnv: 'DEEPSEEK_API_KEY',
      models: DEEPSEEK_MODELS,
      timeoutMs: 120000,
      maxRetries: 2,
      streamIdleTimeoutMs: 300000,
      streamDataTimeoutMs: 600000,
      streamTotalTimeoutMs: 1800000,
      maxResponseBytes: 134217728,
      maxRetryDelayMs: 60000,
      maxLineBytes: 8388608,
      maxTokensField: 'max_tokens',
      reasoningReplay: 'tool-turns',
      includeUsage: true,
      headers: {},
      extraBody: {},
    })
    expect(DEEPSEEK_MODELS).toEqual([
      { id: 'deepseek-chat', name: 'DeepSeek Chat', contextWindow: 131072, defaultMaxTokens: 8192 },
      { id: 'deepseek-reasoner', name: 'DeepSeek Reasoner', contextWindow: 131072, defaultMaxTokens: 32768 },
    ])
    expect(Object.isFrozen(DEEPSEEK_MODELS)).toBe(true)
  })

  it('with baseURL: displayName defaults to provider, models to [], and apiKeyEnv is required', () => {
    const c = resolveConfig({ provider: 'local', baseURL: 'http://127.0.0.1:8000/v1', apiKeyEnv: null })
    expect(c.displayName).toBe('local')
    expect(c.models).toEqual([])
    expect(c.apiKeyEnv).toBeNull()
    const e = configError({ baseURL: 'http://127.0.0.1:8000/v1' })
    expect(e.code).toBe('INVALID_CONFIG')
    expect(e.message.startsWith('llm-openai: invalid config: apiKeyEnv: ')).toBe(true)
  })

  it('rejects unknown keys, reserved extraBody keys, forbidden headers, duplicate model ids, bad efforts and ranges', () => {
    expect(configError({ bogus: 1 }).message.startsWith('llm-openai: invalid config: ')).toBe(true)
    for (const key of [
      'model',
      'messages',
      'stream',
      'stream_options',
      'tools',
      'tool_choice',
      'temperature',
      'stop',
      'max_tokens',
      'max_completion_tokens',
      'reasoning_effort',
    ]) {
      expect(configError({ extraBody: { [key]: 1 } }).message).toContain(`extraBody.${key}`)
      expect(configError({ models: [{ id: 'a', contextWindow: 1, extraBody: { [key]: 1 } }] }).message).toContain(
        'models.0.extraBody',
      )
    }
    for (const header of ['authorization', 'User-Agent', 'accept', 'content-type'])
      configError({ headers: { [header]: 'x' } })
    expect(
      configError({
        models: [
          { id: 'a', contextWindow: 1 },
          { id: 'a', contextWindow: 1 },
        ],
      }).message,
    ).toContain('models.1')
    configError({ models: [{ id: 'a', contextWindow: 1, reasoningEfforts: [] }] })
    configError({ models: [{ id: 'a', contextWindow: 1, reasoningEfforts: ['x', 'x'] }] })
    configError({ models: [{ id: 'a', contextWindow: 1, reasoningEfforts: ['x'], defaultReasoningEffort: 'y' }] })
    configError({ provider: 'has space' })
    configError({ provider: 'p'.repeat(65) })
    configError({ baseURL: 'ftp://example.com', apiKeyEnv: null })
    configError({ apiKeyEnv: '1BAD' })
    configError({ timeoutMs: 0 })
    configError({ maxRetries: 11 })
    configError({ streamIdleTimeoutMs: 2_147_483_648 })
    configError({ maxTokensField: 'max_output_tokens' })
    configError({ reasoningReplay: 'always' })
  })

  it('a bad row never registers a route; two rows with different providers coexist', () => {
    const ctx = new Context()
    ctx.plugin(LlmRuntime)
    ctx.on('internal/error', () => {})
    ctx.plugin(llmOpenai, { bogus: true } as never)
    expect(ctx.llm.listProviders()).toEqual([])
    ctx.plugin(llmOpenai, { provider: 'a', baseURL: 'http://127.0.0.1:1/v1', apiKeyEnv: null })
    const b = ctx.plugin(llmOpenai, {
      provider: 'b',
      displayName: 'Bee',
      baseURL: 'http://127.0.0.1:2/v1',
      apiKeyEnv: null,
    })
    expect(ctx.llm.listProviders()).toEqual([
      { id: 'a', name: 'a' },
      { id: 'b', name: 'Bee' },
    ])
    b.dispose()
    expect(ctx.llm.hasProvider('b')).toBe(false)
    expect(takeLogLines()).toEqual([
      'error app: ConfigError: llm-openai: invalid config: (root): Unrecognized key: "bogus"',
    ])
  })
})

describe('metadata methods', () => {
  it('providerInfo, listModels, resolveModel (listed and unlisted) and retryPolicy', () => {
    const adapter = new OpenAICompatAdapter(
      resolveConfig({
        provider: 'x',
        displayName: 'X Server',
        baseURL: 'http://127.0.0.1:9/v1',
        apiKeyEnv: null,
        models: [
          { id: 'plain', contextWindow: 100 },
          {
            id: 'think',
            name: 'Thinker',
            description: 'd',
            contextWindow: 200,
            defaultMaxTokens: 50,
            reasoningEfforts: ['low', 'high'],
            defaultReasoningEffort: 'low',
          },
        ],
      }),
    )
    expect(adapter.providerInfo('x')).toEqual({ id: 'x', name: 'X Server' })
    expect(adapter.listModels('x')).toEqual([
      { provider: 'x', id: 'plain', name: 'plain' },
      { provider: 'x', id: 'think', name: 'Thinker', description: 'd' },
    ])
    expect(adapter.resolveModel('x', 'plain')).toEqual({
      provider: 'x',
      id: 'plain',
      name: 'plain',
      context: { contextWindow: 100 },
    })
    expect(adapter.resolveModel('x', 'think')).toEqual({
      provider: 'x',
      id: 'think',
      name: 'Thinker',
      description: 'd',
      context: { contextWindow: 200 },
      defaultMaxTokens: 50,
      reasoning: {
        efforts: [
          { id: 'low', name: 'low' },
          { id: 'high', name: 'high' },
        ],
        defaultEffort: 'low',
      },
    })
    expect(adapter.resolveModel('x', 'unlisted')).toEqual({ provider: 'x', id: 'unlisted', name: 'unlisted' })
    expect(adapter.retryPolicy()).toBeUndefined()
  })

  it('a requested effort on deepseek-reasoner fails with UNSUPPORTED_REASONING_EFFORT before any I/O', async () => {
    vi.stubEnv('DEEPSEEK_API_KEY', KEY)
    const ctx = new Context()
    ctx.plugin(LlmRuntime)
    ctx.plugin(llmOpenai, {})
    const chunks: StreamChunk[] = []
    for await (const c of ctx.llm.stream({
      provider: 'deepseek',
      model: 'deepseek-reasoner',
      messages: [],
      reasoningEffort: reasoningEffortId('high'),
    }))
      chunks.push(c)
    expect(chunks).toHaveLength(1)
    expect(failure((chunks[0] as { reason: FinishReason }).reason).code).toBe('UNSUPPORTED_REASONING_EFFORT')
  })
})

describe('pre-I/O failures carry the exact wording', () => {
  it('missing key → MISSING_CREDENTIAL "no API key: environment variable <NAME> is not set", no request', async () => {
    const { ctx, server } = await boot([], { apiKeyEnv: 'BRIDLE_CONFORMANCE_UNSET_KEY' })
    const { chunks } = await run(ctx)
    expect(chunks).toHaveLength(1)
    expect(failure((chunks[0] as { reason: FinishReason }).reason)).toEqual({
      message: 'no API key: environment variable BRIDLE_CONFORMANCE_UNSET_KEY is not set',
      code: 'MISSING_CREDENTIAL',
    })
    expect(server.requests).toHaveLength(0)
  })

  it('an unusable key → INVALID_CREDENTIAL naming the variable, never the key', async () => {
    const { ctx, server } = await boot([])
    vi.stubEnv('BRIDLE_TEST_KEY', 'sk bad key')
    const f = failure((await run(ctx)).finish)
    expect(f.code).toBe('INVALID_CREDENTIAL')
    expect(f.message).toContain('BRIDLE_TEST_KEY')
    expect(f.message).not.toContain('sk bad key')
    expect(server.requests).toHaveLength(0)
  })

  it('an image block (even nested) → "<displayName> route accepts text only", no request', async () => {
    const { ctx, server } = await boot([], { displayName: 'Mock Server' })
    const image = { type: 'image', attachment: { id: 'att-1', mediaType: 'image/png' } } as const
    const nested = createToolResultMessage({ callId: callId('c'), content: [image] })
    const f = failure((await run(ctx, { messages: [nested] })).finish)
    expect(f).toEqual({ message: 'Mock Server route accepts text only', code: 'UNSUPPORTED_CONTENT' })
    expect(server.requests).toHaveLength(0)
  })

  it('a pre-aborted signal → finish aborted ABORTED "request aborted", no request', async () => {
    const { ctx, server } = await boot([])
    const controller = new AbortController()
    controller.abort()
    const { chunks } = await run(ctx, { signal: controller.signal })
    expect(chunks).toHaveLength(1)
    expect((chunks[0] as { reason: FinishReason }).reason).toMatchObject({
      kind: 'aborted',
      failure: { code: 'ABORTED' },
    })
    expect(server.requests).toHaveLength(0)
  })
})

describe('request', () => {
  it('headers and body basics', async () => {
    const { ctx, server } = await boot([{ kind: 'sse', events: textEvents(['ok']) }])
    await run(ctx, { system: 'sys', temperature: 0.2, stop: ['END'] })
    const [recorded] = server.requests
    expect(recorded!.method).toBe('POST')
    expect(recorded!.path).toBe('/chat/completions')
    const manifest = JSON.parse(readFileSync(new URL('../../llm/package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    expect(recorded!.headers['user-agent']).toBe(`bridle/${manifest.version}`)
    expect(recorded!.headers.accept).toBe('text/event-stream')
    expect(recorded!.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(recorded!.body).toEqual({
      model: 'mock-chat',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      stop: ['END'],
      max_tokens: 256,
    })
  })

  it('history mapping: tool results first, (no output), assistant content "" with tool_calls and "{}" arguments', async () => {
    const { ctx, server } = await boot([{ kind: 'sse', events: textEvents(['ok']) }])
    const assistant = createAssistantMessage({
      content: [
        { type: 'reasoning', text: 'think' },
        { type: 'tool-call', id: callId('c1'), name: 'read', arguments: '  ' },
      ],
      source: { provider: 'mock', model: 'mock-chat' },
    })
    const results = createUserMessage([
      { type: 'text', text: 'and then?' },
      { type: 'tool-result', toolCallId: callId('c1'), content: [] },
    ])
    await run(ctx, { messages: [assistant, results] })
    expect((server.requests[0]!.body as { messages: unknown[] }).messages).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }],
        reasoning_content: 'think',
      },
      { role: 'tool', tool_call_id: 'c1', content: '(no output)' },
      { role: 'user', content: 'and then?' },
    ])
  })
})

describe('worked examples', () => {
  it('text', async () => {
    const { ctx } = await boot([
      {
        kind: 'sse',
        events: [
          chunk({ role: 'assistant', content: '' }),
          chunk({ content: 'Hel' }),
          chunk({ content: 'lo' }),
          chunk({ content: '' }, 'stop', { prompt_tokens: 5, completion_tokens: 2 }),
          DONE,
        ],
      },
    ])
    const { chunks } = await run(ctx)
    expect(chunks).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'Hel' },
      { type: 'text-delta', index: 0, text: 'lo' },
      { type: 'block-end', index: 0, block: { type: 'text', text: 'Hello' } },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 2 } },
      { type: 'finish', reason: { kind: 'stop' } },
    ])
  })

  it('reasoning then text: reasoning is index 0, text index 1, both block-ends at [DONE] in order', async () => {
    const { ctx } = await boot([{ kind: 'sse', events: reasoningEvents('hmm', 'answer') }])
    const { chunks } = await run(ctx)
    expect(chunks.filter((c) => c.type === 'block-start')).toEqual([
      { type: 'block-start', index: 0, blockType: 'reasoning' },
      { type: 'block-start', index: 1, blockType: 'text' },
    ])
    const ends = chunks.filter((c) => c.type === 'block-end')
    expect(ends).toEqual([
      { type: 'block-end', index: 0, block: { type: 'reasoning', text: 'hmm' } },
      { type: 'block-end', index: 1, block: { type: 'text', text: 'answer' } },
    ])
    const firstEnd = chunks.findIndex((c) => c.type === 'block-end')
    expect(chunks.slice(firstEnd).map((c) => c.type)).toEqual(['block-end', 'block-end', 'usage', 'finish'])
  })

  it('tool call: three deltas carrying id and name, raw arguments, finish tool-calls', async () => {
    const { ctx } = await boot([
      {
        kind: 'sse',
        events: [
          chunk({
            tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'read_file', arguments: '' } }],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path"' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: ': "a.txt"}' } }] }),
          chunk({}, 'tool_calls', { prompt_tokens: 3, completion_tokens: 1 }),
          DONE,
        ],
      },
    ])
    const { chunks } = await run(ctx)
    expect(chunks).toEqual([
      { type: 'block-start', index: 0, blockType: 'tool-call' },
      { type: 'tool-call-delta', index: 0, id: 'call_0', name: 'read_file', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, id: 'call_0', name: 'read_file', argumentsDelta: '{"path"' },
      { type: 'tool-call-delta', index: 0, id: 'call_0', name: 'read_file', argumentsDelta: ': "a.txt"}' },
      {
        type: 'block-end',
        index: 0,
        block: { type: 'tool-call', id: 'call_0', name: 'read_file', arguments: '{"path": "a.txt"}' },
      },
      { type: 'usage', usage: { inputTokens: 3, outputTokens: 1 } },
      { type: 'finish', reason: { kind: 'tool-calls' } },
    ])
  })

  it('two parallel calls become two blocks with distinct indexes', async () => {
    const { ctx } = await boot([
      {
        kind: 'sse',
        events: toolCallEvents([
          { id: 'a', name: 'f', argFragments: ['{', '}'] },
          { id: 'b', name: 'g', argFragments: ['{}'] },
        ]),
      },
    ])
    const { message, finish } = await run(ctx)
    expect(finish).toEqual({ kind: 'tool-calls' })
    expect(message.content).toEqual([
      { type: 'tool-call', id: 'a', name: 'f', arguments: '{}' },
      { type: 'tool-call', id: 'b', name: 'g', arguments: '{}' },
    ])
  })
})

describe('finish reasons', () => {
  it('stop with no blocks → EMPTY_RESPONSE with the exact message', async () => {
    const { ctx } = await boot([
      { kind: 'sse', events: [chunk({ role: 'assistant', content: '' }), chunk({ content: '' }, 'stop'), DONE] },
    ])
    expect(failure((await run(ctx)).finish)).toEqual({
      message: 'model returned a completed response with no content',
      code: 'EMPTY_RESPONSE',
    })
  })

  it('unmodelled reasons → "model stopped: <reason>" with the upper-cased code', async () => {
    const { ctx } = await boot([
      { kind: 'sse', events: textEvents(['x'], { finishReason: 'content_filter' }) },
      { kind: 'sse', events: textEvents(['x'], { finishReason: 'insufficient_system_resource' }) },
    ])
    expect(failure((await run(ctx)).finish)).toEqual({
      message: 'model stopped: content_filter',
      code: 'CONTENT_FILTER',
    })
    expect(failure((await run(ctx)).finish)).toEqual({
      message: 'model stopped: insufficient_system_resource',
      code: 'INSUFFICIENT_SYSTEM_RESOURCE',
    })
  })

  it('length → max-tokens even with zero blocks; stop after tool calls → tool-calls', async () => {
    const { ctx } = await boot([
      { kind: 'sse', events: [chunk({ content: '' }, 'length'), DONE] },
      { kind: 'sse', events: toolCallEvents([{ id: 'c', name: 'f', argFragments: ['{}'] }], { finishReason: 'stop' }) },
    ])
    expect((await run(ctx)).finish).toEqual({ kind: 'max-tokens' })
    expect((await run(ctx)).finish).toEqual({ kind: 'tool-calls' })
  })
})

describe('usage', () => {
  it('the DeepSeek example; OpenAI cached_tokens; reasoning tokens; a trailing usage-only chunk wins', async () => {
    const { ctx } = await boot([
      {
        kind: 'sse',
        events: textEvents(['x'], {
          usage: {
            prompt_tokens: 1200,
            completion_tokens: 80,
            prompt_cache_hit_tokens: 1024,
            prompt_cache_miss_tokens: 176,
          },
        }),
      },
      {
        kind: 'sse',
        events: [
          chunk({ content: 'x' }),
          chunk({}, 'stop'),
          usageOnlyChunk({
            prompt_tokens: 10,
            completion_tokens: 7,
            prompt_tokens_details: { cached_tokens: 0 },
            completion_tokens_details: { reasoning_tokens: 5 },
          }),
          DONE,
        ],
      },
    ])
    const usageOf = (chunks: StreamChunk[]) => chunks.find((c) => c.type === 'usage')
    expect(usageOf((await run(ctx)).chunks)).toEqual({
      type: 'usage',
      usage: { inputTokens: 176, outputTokens: 80, cacheReadTokens: 1024 },
    })
    expect(usageOf((await run(ctx)).chunks)).toEqual({
      type: 'usage',
      usage: { inputTokens: 10, outputTokens: 7, cacheReadTokens: 0, reasoningTokens: 5 },
    })
  })
})

describe('HTTP errors', () => {
  const cases: { behaviour: MockBehaviour; code: string; message?: string; status: number }[] = [
    {
      behaviour: { kind: 'http-error', status: 401, body: { error: { message: 'bad key' } } },
      code: 'AUTH',
      message: 'bad key',
      status: 401,
    },
    { behaviour: { kind: 'http-error', status: 403, body: '' }, code: 'AUTH', status: 403 },
    {
      behaviour: { kind: 'http-error', status: 402, body: { error: { message: 'Insufficient Balance' } } },
      code: 'QUOTA',
      status: 402,
    },
    {
      behaviour: {
        kind: 'http-error',
        status: 429,
        body: {
          error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' },
        },
      },
      code: 'QUOTA',
      status: 429,
    },
    {
      behaviour: { kind: 'http-error', status: 429, body: { error: { message: 'slow down' } } },
      code: 'RATE_LIMIT',
      message: 'slow down',
      status: 429,
    },
    {
      behaviour: {
        kind: 'http-error',
        status: 400,
        body: { error: { message: 'too long', code: 'context_length_exceeded' } },
      },
      code: 'CONTEXT_WINDOW_EXCEEDED',
      status: 400,
    },
    {
      behaviour: {
        kind: 'http-error',
        status: 400,
        body: {
          error: { message: 'the request exceeds the available context size', type: 'exceed_context_size_error' },
        },
      },
      code: 'CONTEXT_WINDOW_EXCEEDED',
      status: 400,
    },
    {
      behaviour: {
        kind: 'http-error',
        status: 400,
        body: { object: 'error', message: 'legacy vllm says no', type: 'BadRequestError' },
      },
      code: 'INVALID_REQUEST',
      message: 'legacy vllm says no',
      status: 400,
    },
    {
      behaviour: { kind: 'http-error', status: 422, body: { detail: 'unprocessable thing' } },
      code: 'INVALID_REQUEST',
      message: 'unprocessable thing',
      status: 422,
    },
    {
      behaviour: { kind: 'http-error', status: 408, body: { error: 'ollama-style string' } },
      code: 'TIMEOUT',
      message: 'ollama-style string',
      status: 408,
    },
    {
      behaviour: { kind: 'http-error', status: 502, body: '  <html>Bad Gateway</html>\n', contentType: 'text/html' },
      code: 'SERVER',
      message: '<html>Bad Gateway</html>',
      status: 502,
    },
    {
      behaviour: { kind: 'http-error', status: 404, body: '' },
      code: 'HTTP_404',
      message: 'Mock API error (HTTP 404)',
      status: 404,
    },
  ]
  for (const c of cases) {
    it(`${c.status} ${JSON.stringify(c.behaviour.kind === 'http-error' ? c.behaviour.body : '')} → ${c.code}`, async () => {
      const { ctx } = await boot([c.behaviour], { displayName: 'Mock' })
      const f = failure((await run(ctx)).finish)
      expect(f.code).toBe(c.code)
      expect(f.status).toBe(c.status)
      if (c.message !== undefined) expect(f.message).toBe(c.message)
    })
  }

  it('message cut to 500 chars; retry-after-ms, Retry-After seconds and x-request-id become facts', async () => {
    const { ctx } = await boot([
      {
        kind: 'http-error',
        status: 503,
        body: { error: { message: 'y'.repeat(900) } },
        headers: { 'retry-after': '2', 'x-request-id': 'req-42' },
      },
      { kind: 'http-error', status: 503, body: {}, headers: { 'retry-after-ms': '1500', 'retry-after': '9' } },
      { kind: 'http-error', status: 503, body: {}, headers: { 'retry-after': 'soon' } },
    ])
    const first = failure((await run(ctx)).finish)
    expect(first).toEqual({
      message: 'y'.repeat(500),
      code: 'SERVER',
      status: 503,
      providerRetryAfterMs: 2000,
      requestId: 'req-42',
    })
    expect(failure((await run(ctx)).finish)).toEqual({
      message: 'mock API error (HTTP 503)',
      code: 'SERVER',
      status: 503,
      providerRetryAfterMs: 1500,
    })
    expect(failure((await run(ctx)).finish)).toEqual({
      message: 'mock API error (HTTP 503)',
      code: 'SERVER',
      status: 503,
    })
  })
})

describe('stream failures carry the exact wording', () => {
  // the spec's sentence, followed by what came back (issue 18: a non-event-stream answer says what it was)
  it('application/json 2xx → MALFORMED_RESPONSE "expected an event stream from <baseURL>, got application/json: <snippet>"', async () => {
    const { ctx, server } = await boot([{ kind: 'sse', events: [], headers: { 'content-type': 'application/json' } }])
    expect(failure((await run(ctx)).finish)).toEqual({
      message: `expected an event stream from ${server.url}, got application/json: (empty body)`,
      code: 'MALFORMED_RESPONSE',
    })
  })

  it('missing or unterminated [DONE] → STREAM_CLOSED "event stream from <baseURL> ended without [DONE]"', async () => {
    const { ctx, server } = await boot([
      { kind: 'sse', events: textEvents(['a']).slice(0, -1) },
      { kind: 'sse', events: [...textEvents(['a']).slice(0, -1), { raw: 'data: [DONE]' }] },
    ])
    const expected = { message: `event stream from ${server.url} ended without [DONE]`, code: 'STREAM_CLOSED' }
    const first = await run(ctx)
    expect(failure(first.finish)).toEqual(expected)
    expect(failure((await run(ctx)).finish)).toEqual(expected)
  })

  it('non-JSON data → MALFORMED_RESPONSE carrying its first 120 characters; a mid-stream error event → SERVER', async () => {
    const junk = `not json ${'z'.repeat(200)}`
    const { ctx } = await boot([
      { kind: 'sse', events: [junk] },
      { kind: 'sse', events: [chunk({ content: 'partial' }), { error: { message: 'upstream overloaded' } }] },
      { kind: 'sse', events: [{ raw: 'event: error\ndata: {"error":{"message":"Insufficient Balance"}}\n\n' }] },
    ])
    const m = failure((await run(ctx)).finish)
    expect(m.code).toBe('MALFORMED_RESPONSE')
    expect(m.message).toContain(junk.slice(0, 120))
    expect(m.message).not.toContain(junk.slice(0, 121))
    expect(failure((await run(ctx)).finish)).toEqual({ message: 'upstream overloaded', code: 'SERVER' })
    expect(failure((await run(ctx)).finish)).toEqual({ message: 'Insufficient Balance', code: 'QUOTA' })
  })

  it('keep-alive comments, CRLF framing and events after [DONE] are handled', async () => {
    const { ctx } = await boot([
      {
        kind: 'sse',
        events: [
          KEEPALIVE,
          { raw: `data: ${JSON.stringify(chunk({ content: '你好' }))}\r\n\r\n` },
          chunk({}, 'stop'),
          DONE,
          chunk({ content: 'ignored' }),
        ],
        chunkBytes: 1,
      },
    ])
    const { message, finish } = await run(ctx)
    expect(finish).toEqual({ kind: 'stop' })
    expect(message.content).toEqual([{ type: 'text', text: '你好' }])
  })

  it('idle body → TIMEOUT "event stream from <baseURL> idle for <ms>ms" after the partial blocks', async () => {
    const { ctx, server } = await boot([{ kind: 'hang', events: [chunk({ content: 'partial' })] }], {
      streamIdleTimeoutMs: 200,
    })
    const { chunks, finish } = await run(ctx)
    expect(chunks[0]).toEqual({ type: 'block-start', index: 0, blockType: 'text' })
    expect(failure(finish)).toEqual({ message: `event stream from ${server.url} idle for 200ms`, code: 'TIMEOUT' })
  })

  it('no headers → TIMEOUT "request to <baseURL> timed out after <timeoutMs>ms"', async () => {
    const { ctx, server } = await boot([{ kind: 'hang' }], { timeoutMs: 200 })
    expect(failure((await run(ctx)).finish)).toEqual({
      message: `request to ${server.url} timed out after 200ms`,
      code: 'TIMEOUT',
    })
  })

  // the spec's sentence, followed by the cause (issue 18: transport errors carry their cause)
  it('close-early → TRANSPORT "event stream from <baseURL> failed: <cause>"', async () => {
    const { ctx, server } = await boot([{ kind: 'close-early', events: [chunk({ content: 'partial' })] }])
    expect(failure((await run(ctx)).finish)).toEqual({
      message: `event stream from ${server.url} failed: other side closed (UND_ERR_SOCKET)`,
      code: 'TRANSPORT',
    })
  })

  it('refused port → TRANSPORT "request to <baseURL> failed: connect ECONNREFUSED …"', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const { ctx } = await boot([], { baseURL: `http://127.0.0.1:${port}` })
    expect(failure((await run(ctx)).finish)).toEqual({
      message: `request to http://127.0.0.1:${port} failed: connect ECONNREFUSED 127.0.0.1:${port}`,
      code: 'TRANSPORT',
    })
  })

  it('abort mid-body → finish aborted ABORTED and the server sees the disconnect', async () => {
    const { ctx, server } = await boot([{ kind: 'hang', events: [chunk({ content: 'partial' })] }])
    const controller = new AbortController()
    const options: GenerateOptions = { provider: 'mock', model: 'mock-chat', messages: [], signal: controller.signal }
    const chunks: StreamChunk[] = []
    for await (const c of ctx.llm.stream(options)) {
      chunks.push(c)
      if (c.type === 'text-delta') controller.abort()
    }
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', reason: { kind: 'aborted', failure: { code: 'ABORTED' } } })
    await server.requests[0]!.disconnected
  })
})

describe('mock server', () => {
  it('an exhausted script answers 500 "mock script exhausted" and counts unexpected', async () => {
    server = await startMockServer()
    const response = await fetch(`${server.url}/anything`, { method: 'POST', body: '{"a":1}' })
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: { message: 'mock script exhausted', type: 'mock_error' } })
    expect(server.unexpected).toBe(1)
    expect(server.remaining()).toBe(0)
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/anything', rawBody: '{"a":1}', body: { a: 1 } })
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it('canned builders follow the documented shapes', () => {
    const text = textEvents(['a'])
    expect(text[0]).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [{ delta: { role: 'assistant', content: '' } }],
    })
    expect(text.at(-2)).toMatchObject({
      choices: [{ delta: { content: '' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    })
    expect(text.at(-1)).toBe('[DONE]')
    expect(reasoningEvents('r', 't')[0]).toMatchObject({
      choices: [{ delta: { role: 'assistant', content: null, reasoning_content: '' } }],
    })
    expect(usageOnlyChunk({ prompt_tokens: 1 })).toMatchObject({ choices: [], usage: { prompt_tokens: 1 } })
    expect(DONE).toBe('[DONE]')
    expect(KEEPALIVE).toEqual({ raw: ': keep-alive\n\n' })
    expect(textEvents(['a'])).toEqual(textEvents(['a']))
  })
})

describe('request details', () => {
  it('keyless route sends no authorization; ambient OPENAI_* variables are ignored; extraBody model entry wins', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-ambient-openai')
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:9/v1')
    const { ctx, server } = await boot([{ kind: 'sse', events: textEvents(['ok']) }], {
      apiKeyEnv: null,
      maxTokensField: 'max_completion_tokens',
      includeUsage: false,
      headers: { 'x-extra': 'yes' },
      extraBody: { a: 1, b: 1 },
      models: [
        {
          id: 'mock-chat',
          contextWindow: 8192,
          reasoningEfforts: ['low', 'high'],
          extraBody: { b: 2, c: { d: true } },
        },
      ],
    })
    const tools = [
      { name: 'zeta', description: 'z', parameters: { type: 'object' } },
      { name: 'alpha', description: 'a', parameters: { type: 'object', properties: {} } },
    ]
    await run(ctx, { maxTokens: 10, reasoningEffort: reasoningEffortId('high'), tools })
    const recorded = server.requests[0]!
    expect(recorded.headers.authorization).toBeUndefined()
    expect(recorded.headers['x-extra']).toBe('yes')
    expect(recorded.rawBody).not.toContain('sk-ambient-openai')
    expect(recorded.body).toEqual({
      model: 'mock-chat',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      tools: tools.map((t) => ({ type: 'function', function: t })),
      max_completion_tokens: 10,
      reasoning_effort: 'high',
      a: 1,
      b: 2,
      c: { d: true },
    })
  })

  it('no tools key when empty; empty stop omitted; explicit maxTokens wins over the default', async () => {
    const { ctx, server } = await boot([{ kind: 'sse', events: textEvents(['ok']) }])
    await run(ctx, { tools: [], stop: [], maxTokens: 9 })
    const body = server.requests[0]!.body as Record<string, unknown>
    expect('tools' in body).toBe(false)
    expect('stop' in body).toBe(false)
    expect('tool_choice' in body).toBe(false)
    expect(body.max_tokens).toBe(9)
  })

  it('reasoning_content is replayed only on same-route tool-call turns with non-empty reasoning', async () => {
    const turn = (provider: string, withTool: boolean) =>
      createAssistantMessage({
        content: [
          { type: 'reasoning', text: `why-${provider}` },
          { type: 'text', text: 'visible' },
          ...(withTool
            ? [{ type: 'tool-call' as const, id: callId(`c-${provider}`), name: 'f', arguments: '{"x":1}' }]
            : []),
        ],
        source: { provider, model: 'mock-chat' },
      })
    const history = [turn('mock', true), turn('mock', false), turn('elsewhere', true)]
    const { ctx, server } = await boot([
      { kind: 'sse', events: textEvents(['ok']) },
      { kind: 'sse', events: textEvents(['ok']) },
    ])
    await run(ctx, { messages: history })
    const sent = (server.requests[0]!.body as { messages: Record<string, unknown>[] }).messages
    expect(sent[0]).toEqual({
      role: 'assistant',
      content: 'visible',
      tool_calls: [{ id: 'c-mock', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
      reasoning_content: 'why-mock',
    })
    expect(sent[1]).toEqual({ role: 'assistant', content: 'visible' })
    expect('reasoning_content' in sent[2]!).toBe(false)
    await server.close()
    const again = await boot([{ kind: 'sse', events: textEvents(['ok']) }], { reasoningReplay: 'never' })
    await run(again.ctx, { messages: history })
    const never = (again.server.requests[0]!.body as { messages: Record<string, unknown>[] }).messages
    expect(never.some((m) => 'reasoning_content' in m)).toBe(false)
  })
})

describe('delta translation details', () => {
  it('the `reasoning` field is read when reasoning_content is absent, never both counted', async () => {
    const { ctx } = await boot([
      {
        kind: 'sse',
        events: [
          chunk({ reasoning: 'r1' }),
          chunk({ reasoning_content: 'r2', reasoning: 'dup' }),
          chunk({ content: 't' }, 'stop'),
          DONE,
        ],
      },
    ])
    const { message } = await run(ctx)
    expect(message.content).toEqual([
      { type: 'reasoning', text: 'r1r2' },
      { type: 'text', text: 't' },
    ])
  })

  it('reasoning-only answer finishes stop; non-array choices and choices other than index 0 are ignored', async () => {
    const { ctx } = await boot([
      {
        kind: 'sse',
        events: [
          chunk({ reasoning_content: 'only thinking' }),
          { choices: { index: 0, delta: { content: 'not an array' } } },
          { choices: [{ index: 1, delta: { content: 'second choice' } }] },
          chunk({}, 'stop'),
          DONE,
        ],
      },
    ])
    const { message, finish } = await run(ctx)
    expect(finish).toEqual({ kind: 'stop' })
    expect(message.content).toEqual([{ type: 'reasoning', text: 'only thinking' }])
  })

  it('tool calls without index: a new unseen id opens a call, id-less fragments go to the latest; object arguments are stringified', async () => {
    const { ctx } = await boot([
      {
        kind: 'sse',
        events: [
          chunk({ tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{"x"' } }] }),
          chunk({ tool_calls: [{ function: { arguments: ':1}' } }] }),
          chunk({ tool_calls: [{ id: 'b', function: { name: 'g', arguments: { whole: true } } }] }),
          chunk({}, 'tool_calls'),
          DONE,
        ],
      },
    ])
    const { message } = await run(ctx)
    expect(message.content).toEqual([
      { type: 'tool-call', id: 'a', name: 'f', arguments: '{"x":1}' },
      { type: 'tool-call', id: 'b', name: 'g', arguments: '{"whole":true}' },
    ])
  })

  it('a tool call that never got an id or name is assembled as call-<index> with name ""', async () => {
    const { ctx } = await boot([
      {
        kind: 'sse',
        events: [chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }), chunk({}, 'tool_calls'), DONE],
      },
    ])
    const { chunks } = await run(ctx)
    expect(chunks.find((c) => c.type === 'tool-call-delta')).toEqual({
      type: 'tool-call-delta',
      index: 0,
      id: '',
      argumentsDelta: '{}',
    })
    expect(chunks.find((c) => c.type === 'block-end')).toEqual({
      type: 'block-end',
      index: 0,
      block: { type: 'tool-call', id: 'call-0', name: '', arguments: '{}' },
    })
  })

  it('the latest finish_reason wins', async () => {
    const { ctx } = await boot([{ kind: 'sse', events: [chunk({ content: 'x' }, 'length'), chunk({}, 'stop'), DONE] }])
    expect((await run(ctx)).finish).toEqual({ kind: 'stop' })
  })
})
