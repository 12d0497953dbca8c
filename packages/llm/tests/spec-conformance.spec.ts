/**
 * Black-box conformance with the package's documented contract (README.md, docs/model-calls.md): export names, exact
 * error wording, codes, event names, payload shapes and worked examples. Imports only the public entry.
 */
import { readFileSync } from 'node:fs'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { takeLogLines } from '../../../tests/support/logs.js'
import {
  BlockAssembler,
  CONTEXT_SUMMARY_MAX_CHARS,
  Config,
  ConfigError,
  ConfigSchema,
  DEFAULT_RETRY_POLICY,
  HarnessError,
  LlmError,
  LlmRuntime,
  assertUsableApiKey,
  attributionHeaders,
  boundContextSummary,
  callConfigEquals,
  callConfigOf,
  callId,
  contentHasImage,
  createAssistantMessage,
  createMessage,
  createToolResultMessage,
  createUserMessage,
  deepFreeze,
  errorChain,
  freezeMessage,
  isBlockType,
  isContextWindowExceededError,
  isLoopRequest,
  isQuotaExceededError,
  isTokenDelta,
  markLoopRequest,
  messageId,
  normalizeApiKey,
  reasoningEffortId,
  streamGrammarViolations,
  textOf,
  validateRetryPolicy,
  type GenerateOptions,
  type LlmAdapter,
  type StreamChunk,
} from '@bridle/llm'

function app(): Context {
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  return ctx
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of iterable) out.push(item)
  return out
}

const text = (t: string, index = 0): StreamChunk[] => [
  { type: 'block-start', index, blockType: 'text' },
  { type: 'text-delta', index, text: t },
  { type: 'block-end', index, block: { type: 'text', text: t } },
]
const STOP: StreamChunk = { type: 'finish', reason: { kind: 'stop' } }

function adapter(chunks: StreamChunk[] = [...text('ok'), STOP], extra: Partial<LlmAdapter> = {}) {
  const requests: GenerateOptions[] = []
  const a: LlmAdapter & { requests: GenerateOptions[] } = {
    requests,
    async *stream(options) {
      requests.push(options)
      yield* chunks
    },
    ...extra,
  }
  return a
}

const req = (provider = 'p', model = 'm', extra: Partial<GenerateOptions> = {}): GenerateOptions => ({
  provider,
  model,
  messages: [],
  ...extra,
})

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    return (error as { code?: string }).code
  }
  return undefined
}

describe('ids and plugin export', () => {
  it('brand functions are identities and LlmRuntime is a named export providing ctx.llm', () => {
    expect(messageId('a')).toBe('a')
    expect(callId('b')).toBe('b')
    expect(reasoningEffortId('high')).toBe('high')
    const ctx = app()
    expect(ctx.llm).toBeInstanceOf(LlmRuntime)
  })
})

describe('content helpers', () => {
  it('textOf joins only text blocks, with a default newline separator', () => {
    const blocks = [
      { type: 'text', text: 'a' },
      { type: 'reasoning', text: 'r' },
      { type: 'text', text: 'b' },
    ] as const
    expect(textOf(blocks)).toBe('a\nb')
    expect(textOf(blocks, '')).toBe('ab')
    expect(isBlockType(blocks[1], 'reasoning')).toBe(true)
    expect(isBlockType(blocks[1], 'text')).toBe(false)
  })

  it('contentHasImage looks inside tool-result content', () => {
    const image = { type: 'image', attachment: { id: 'i', mediaType: 'image/png' } } as const
    expect(contentHasImage([{ type: 'tool-result', toolCallId: callId('c'), content: [image] }])).toBe(true)
    expect(contentHasImage([{ type: 'text', text: 'x' }])).toBe(false)
  })
})

describe('messages', () => {
  it('constructors mint UUID ids, deep-freeze, and throw TypeError (not LlmError) on bad input', () => {
    const m = createUserMessage('hi')
    expect(m.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(m.content).toEqual([{ type: 'text', text: 'hi' }])
    expect(m.source).toEqual({ kind: 'user' })
    expect(Object.isFrozen(m) && Object.isFrozen(m.content) && Object.isFrozen(m.content[0])).toBe(true)
    expect(() => createMessage({ role: 'bogus' as 'user', content: [], source: { kind: 'user' } })).toThrow(TypeError)
    try {
      createMessage({ role: 'bogus' as 'user', content: [], source: { kind: 'user' } })
    } catch (error) {
      expect(error).not.toBeInstanceOf(LlmError)
    }
  })

  it('createAssistantMessage forces role assistant and kind model; tool results are user-role', () => {
    const a = createAssistantMessage({ content: [], source: { provider: 'p', model: 'm', replayState: { x: 1 } } })
    expect(a.role).toBe('assistant')
    expect(a.source).toEqual({ kind: 'model', provider: 'p', model: 'm', replayState: { x: 1 } })
    const t = createToolResultMessage({ callId: callId('c1'), content: 'out', isError: true })
    expect(t.role).toBe('user')
    expect(t.source).toEqual({ kind: 'tool', callId: 'c1' })
    expect(t.content).toEqual([
      { type: 'tool-result', toolCallId: 'c1', content: [{ type: 'text', text: 'out' }], isError: true },
    ])
  })

  it('freezeMessage keeps the id and rejects a missing or empty id with TypeError', () => {
    const kept = freezeMessage({ id: 'keep-me', role: 'user', content: [], source: { kind: 'user' } })
    expect(kept.id).toBe('keep-me')
    expect(Object.isFrozen(kept)).toBe(true)
    expect(() => freezeMessage({ role: 'user', content: [], source: { kind: 'user' } })).toThrow(TypeError)
    expect(() => freezeMessage({ id: '', role: 'user', content: [], source: { kind: 'user' } })).toThrow(TypeError)
  })

  it('isTokenDelta: non-empty text/reasoning deltas, tool-call deltas with a name or arguments', () => {
    expect(isTokenDelta({ type: 'text-delta', index: 0, text: 'a' })).toBe(true)
    expect(isTokenDelta({ type: 'text-delta', index: 0, text: '' })).toBe(false)
    expect(isTokenDelta({ type: 'reasoning-delta', index: 0, text: 'r' })).toBe(true)
    expect(isTokenDelta({ type: 'tool-call-delta', index: 0, id: callId(''), argumentsDelta: '' })).toBe(false)
    expect(isTokenDelta({ type: 'tool-call-delta', index: 0, id: callId(''), name: 'f', argumentsDelta: '' })).toBe(
      true,
    )
    expect(isTokenDelta({ type: 'tool-call-delta', index: 0, id: callId(''), argumentsDelta: '{' })).toBe(true)
    expect(isTokenDelta({ type: 'block-start', index: 0, blockType: 'text' })).toBe(false)
  })
})

describe('sources and context forms', () => {
  it('CONTEXT_SUMMARY_MAX_CHARS is 120 and boundContextSummary cuts to 119 + …', () => {
    expect(CONTEXT_SUMMARY_MAX_CHARS).toBe(120)
    expect(boundContextSummary('a'.repeat(119))).toBe('a'.repeat(119))
    expect(boundContextSummary('a'.repeat(120))).toBe('a'.repeat(120))
    expect(boundContextSummary('a'.repeat(121))).toBe(`${'a'.repeat(119)}…`)
    expect(boundContextSummary('  one\n\ttwo   three \n')).toBe('one two three')
  })

  it('a notice without summary and a snapshot without sections are rejected', () => {
    expect(() => createUserMessage('x', { kind: 'plugin', plugin: 'p', form: 'notice' } as never)).toThrow(TypeError)
    expect(() => createUserMessage('x', { kind: 'plugin', plugin: 'p', form: 'snapshot' } as never)).toThrow(TypeError)
    const ok = createUserMessage('x', {
      kind: 'plugin',
      plugin: '@bridle/system-prompt',
      form: 'snapshot',
      sections: [{ name: 'clock', text: 'now' }],
    })
    expect(ok.source).toMatchObject({ form: 'snapshot', sections: [{ name: 'clock', text: 'now' }] })
  })
})

describe('call config helpers', () => {
  it('callConfigOf picks the six fields and drops undefined ones', () => {
    const picked = callConfigOf({ ...req(), system: 's', maxTokens: 5, temperature: undefined })
    expect(picked).toEqual({ provider: 'p', model: 'm', maxTokens: 5 })
    expect(Object.keys(picked)).not.toContain('temperature')
  })

  it('callConfigEquals compares stop element-wise; undefined only equals undefined', () => {
    const base = { provider: 'p', model: 'm' }
    expect(callConfigEquals({ ...base, stop: ['a', 'b'] }, { ...base, stop: ['a', 'b'] })).toBe(true)
    expect(callConfigEquals({ ...base, stop: ['a', 'b'] }, { ...base, stop: ['b', 'a'] })).toBe(false)
    expect(callConfigEquals({ ...base, stop: ['a'] }, { ...base, stop: ['a', 'b'] })).toBe(false)
    expect(callConfigEquals({ ...base, stop: [] }, base)).toBe(false)
    expect(callConfigEquals({ ...base, maxTokens: 1 }, base)).toBe(false)
  })
})

describe('stream grammar', () => {
  it('valid text stream has no violations; each rule is reported', () => {
    expect(
      streamGrammarViolations([...text('a'), { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } }, STOP]),
    ).toEqual([])
    expect(streamGrammarViolations([...text('a')])).not.toEqual([]) // no finish
    expect(streamGrammarViolations([STOP, STOP])).not.toEqual([]) // two finishes
    expect(streamGrammarViolations([{ type: 'block-start', index: 0, blockType: 'text' }, STOP])).not.toEqual([]) // open at stop
    expect(
      streamGrammarViolations([
        { type: 'block-start', index: 0, blockType: 'text' },
        { type: 'finish', reason: { kind: 'error', failure: { message: 'x', code: 'SERVER' } } },
      ]),
    ).toEqual([])
    expect(streamGrammarViolations([{ type: 'text-delta', index: 0, text: 'x' }, STOP])).not.toEqual([]) // delta to closed
    expect(streamGrammarViolations([{ type: 'block-start', index: -1, blockType: 'text' }, STOP])).not.toEqual([])
    const u = { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } } as const
    expect(streamGrammarViolations([u, u, STOP])).not.toEqual([])
    expect(streamGrammarViolations([STOP, u])).not.toEqual([])
  })
})

describe('errors', () => {
  it('HarnessError carries code, cause and a settable name', () => {
    const cause = new Error('root')
    const e = new HarnessError('boom', 'SOME_CODE', { cause })
    expect(e).toBeInstanceOf(Error)
    expect(e.code).toBe('SOME_CODE')
    expect(e.cause).toBe(cause)
    expect(e.message).toBe('boom')
  })

  it('ConfigError: name, code INVALID_CONFIG, issues, and "<plugin>: invalid config: <path>: <message>; …"', () => {
    const schema = z.object({ a: z.object({ b: z.number() }), c: z.string() }).strict()
    const result = schema.safeParse({ a: { b: 'x' }, c: 1 })
    expect(result.success).toBe(false)
    const e = new ConfigError('my-plugin', result.error!)
    expect(e).toBeInstanceOf(HarnessError)
    expect(e.name).toBe('ConfigError')
    expect(e.code).toBe('INVALID_CONFIG')
    expect(e.issues).toHaveLength(2)
    // cordis' logger prints `cause` first; the zod error there would be the raw JSON dump the spec forbids.
    expect(e.cause).toBeUndefined()
    const [first, second] = result.error!.issues
    expect(e.message).toBe(`my-plugin: invalid config: a.b: ${first!.message}; c: ${second!.message}`)
    const root = z.number().safeParse('x')
    expect(new ConfigError('p', root.error!).message).toBe(
      `p: invalid config: (root): ${root.error!.issues[0]!.message}`,
    )
  })

  it('LlmRuntime.Config parses undefined as {} and rejects any key with ConfigError for plugin llm', () => {
    // The repository's convention (CONTRIBUTING.md, "Plugin config"): the schema is exported as ConfigSchema, the
    // parser as Config (also the static).
    expect(ConfigSchema.safeParse({}).success).toBe(true)
    expect(ConfigSchema.safeParse({ extra: 1 }).success).toBe(false)
    expect(LlmRuntime.Config).toBe(Config)
    expect(LlmRuntime.Config(undefined)).toEqual({})
    expect(LlmRuntime.Config({})).toEqual({})
    try {
      LlmRuntime.Config({ extra: 1 } as never)
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as Error).message.startsWith('llm: invalid config: ')).toBe(true)
    }
  })

  it('LlmError: name, own code/cause, frozen failure, invalid facts dropped, from() round trip', () => {
    const cause = new Error('socket')
    const e = new LlmError('rate limited', 'RATE_LIMIT', {
      status: 429,
      providerRetryAfterMs: 1500,
      requestId: 'req-1',
      cause,
    })
    expect(e).toBeInstanceOf(HarnessError)
    expect(e.name).toBe('LlmError')
    expect(Object.hasOwn(e, 'code')).toBe(true)
    expect(e.code).toBe('RATE_LIMIT')
    expect(e.cause).toBe(cause)
    expect(e.failure).toEqual({
      message: 'rate limited',
      code: 'RATE_LIMIT',
      status: 429,
      providerRetryAfterMs: 1500,
      requestId: 'req-1',
    })
    expect(Object.isFrozen(e.failure)).toBe(true)
    const bad = new LlmError('x', 'SERVER', { status: 42, providerRetryAfterMs: 0, requestId: '' })
    expect(bad.failure).toEqual({ message: 'x', code: 'SERVER' })
    const nan = new LlmError('x', 'SERVER', { status: 500.5, providerRetryAfterMs: Number.POSITIVE_INFINITY })
    expect(nan.failure).toEqual({ message: 'x', code: 'SERVER' })
    const round = LlmError.from(e.failure)
    expect(round).toBeInstanceOf(LlmError)
    expect(round.failure).toEqual(e.failure)
    const fromFailure = new LlmError('other', 'AUTH', e.failure)
    expect(fromFailure.failure).toEqual({
      message: 'other',
      code: 'AUTH',
      status: 429,
      providerRetryAfterMs: 1500,
      requestId: 'req-1',
    })
  })

  it('errorChain renders message: cause-message, is cycle-safe and depth-limited to 8', () => {
    const inner = new Error('inner')
    const outer = new Error('outer', { cause: inner })
    expect(errorChain(outer)).toBe('outer: inner')
    const a: { message: string; cause?: unknown } = { message: 'a' }
    a.cause = a
    expect(errorChain(a)).toBe('a')
    let deep: Error = new Error('e0')
    for (let i = 1; i < 20; i++) deep = new Error(`e${i}`, { cause: deep })
    expect(errorChain(deep).split(': ')).toHaveLength(8)
  })

  it('classifiers recognise the spec phrases', () => {
    for (const sample of [
      'Context length exceeded',
      "This model's maximum context length is 8192 tokens",
      'context_length_exceeded',
      'the request exceeds the available context size',
      "Prompt is too large for the model's context window",
      'The input (9000 tokens) exceeds the context of the model',
    ])
      expect(isContextWindowExceededError(sample), sample).toBe(true)
    expect(isContextWindowExceededError('input is fine. It exceeds nothing about context')).toBe(false)
    expect(isContextWindowExceededError('rate limit exceeded')).toBe(false)
    for (const sample of [
      'Insufficient Balance',
      'insufficient quota',
      'insufficient credits',
      'Quota exceeded for today',
      'You exceeded your current quota, please check your plan',
      'credits exhausted',
      'you are out of credits',
      'insufficient_quota',
    ])
      expect(isQuotaExceededError(sample), sample).toBe(true)
    expect(isQuotaExceededError('rate limit reached')).toBe(false)
  })

  it('normalizeApiKey trims and requires printable ASCII; assertUsableApiKey names the ref, never the key', () => {
    expect(normalizeApiKey('  sk-abc \n')).toEqual({ ok: true, key: 'sk-abc' })
    expect(normalizeApiKey('   ')).toEqual({ ok: false, reason: 'empty' })
    expect(normalizeApiKey(undefined)).toEqual({ ok: false, reason: 'empty' })
    expect(normalizeApiKey('sk ab')).toEqual({ ok: false, reason: 'illegalCharacters' })
    expect(normalizeApiKey('sk-ключ')).toEqual({ ok: false, reason: 'illegalCharacters' })
    try {
      assertUsableApiKey('sk-секрет', 'MY_KEY_ENV')
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(LlmError)
      expect((error as LlmError).code).toBe('INVALID_CREDENTIAL')
      expect((error as Error).message).toContain('MY_KEY_ENV')
      expect((error as Error).message).not.toContain('секрет')
    }
  })
})

describe('attribution', () => {
  it('attributionHeaders() is exactly {user-agent: bridle/<package version>}', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    expect(attributionHeaders()).toEqual({ 'user-agent': `bridle/${manifest.version}` })
  })
})

describe('deepFreeze registry and loop marker', () => {
  it('registries live on globalThis under the shared symbols', () => {
    const frozen = deepFreeze({ a: { b: 1 } })
    const registry = (globalThis as Record<symbol, unknown>)[Symbol.for('bridle.llm.deepFrozen')]
    expect(registry).toBeInstanceOf(WeakSet)
    expect((registry as WeakSet<object>).has(frozen)).toBe(true)
    // Bridle decision (llm README, "deepFreeze records roots"): only the root of each call is recorded.
    expect((registry as WeakSet<object>).has(frozen.a)).toBe(false)
    const request = markLoopRequest({ provider: 'p' })
    const loops = (globalThis as Record<symbol, unknown>)[Symbol.for('bridle.llm.loopRequests')]
    expect((loops as WeakSet<object>).has(request)).toBe(true)
    expect(isLoopRequest(request)).toBe(true)
    expect(isLoopRequest({ ...request })).toBe(false)
    expect(Object.isFrozen(request)).toBe(false)
  })

  it('skips functions and AbortSignals, freezes symbol-keyed data, never invokes getters', () => {
    const fn = () => 1
    const controller = new AbortController()
    const sym = Symbol('s')
    let calls = 0
    const root = deepFreeze({
      fn,
      signal: controller.signal,
      [sym]: { inner: [1] },
      get lazy() {
        calls++
        return {}
      },
    })
    expect(calls).toBe(0)
    expect(Object.isFrozen(fn)).toBe(false)
    expect(Object.isFrozen(controller.signal)).toBe(false)
    expect(Object.isFrozen(root[sym])).toBe(true)
    expect(Object.isFrozen(root[sym].inner)).toBe(true)
    let fired = false
    root.signal.addEventListener('abort', () => (fired = true))
    controller.abort()
    expect(fired).toBe(true)
  })
})

describe('registration', () => {
  it('registration misuse codes; nothing is registered on failure; DUPLICATE_ADAPTER names the provider', () => {
    const ctx = app()
    const llm = ctx.llm
    expect(codeOf(() => llm.registerAdapter([], adapter()))).toBe('INVALID_ADAPTER')
    expect(codeOf(() => llm.registerAdapter(['has space'], adapter()))).toBe('INVALID_ADAPTER')
    expect(codeOf(() => llm.registerAdapter(['x'.repeat(65)], adapter()))).toBe('INVALID_ADAPTER')
    expect(codeOf(() => llm.registerAdapter(['a', 'a'], adapter()))).toBe('INVALID_ADAPTER')
    expect(codeOf(() => llm.registerAdapter(['a'], null as never))).toBe('INVALID_ADAPTER')
    expect(codeOf(() => llm.registerAdapter(['a'], {} as never))).toBe('INVALID_ADAPTER')
    expect(
      codeOf(() => llm.registerAdapter(['a'], adapter(undefined, { providerInfo: () => ({ id: 'b', name: 'B' }) }))),
    ).toBe('INVALID_ADAPTER')
    expect(
      codeOf(() => llm.registerAdapter(['a'], adapter(undefined, { providerInfo: (p) => ({ id: p, name: '' }) }))),
    ).toBe('INVALID_ADAPTER')
    expect(
      codeOf(() => llm.registerAdapter(['a'], adapter(undefined, { retryPolicy: () => ({ jitterRatio: 2 }) }))),
    ).toBe('INVALID_ADAPTER')
    expect(llm.listProviders()).toEqual([])
    expect(llm.registerAdapter(['x'.repeat(64)], adapter())).toBeTypeOf('function')
    llm.registerAdapter(['taken'], adapter())
    try {
      llm.registerAdapter(['fresh', 'taken'], adapter())
      expect.unreachable()
    } catch (error) {
      expect((error as LlmError).code).toBe('DUPLICATE_ADAPTER')
      expect((error as Error).message).toContain('taken')
    }
    expect(llm.hasProvider('fresh')).toBe(false)
  })

  it('emits payload-free llm/adapters-updated once per register, replace and dispose; REGISTRATION_DISPOSED after', () => {
    const ctx = app()
    const seen: unknown[][] = []
    ctx.on('llm/adapters-updated', (...args: unknown[]) => void seen.push(args))
    const handle = ctx.llm.registerAdapter(
      ['a'],
      adapter(undefined, { providerInfo: (p) => ({ id: p, name: `Name ${p}` }) }),
    )
    expect(seen).toEqual([[]])
    expect(ctx.llm.listProviders()).toEqual([{ id: 'a', name: 'Name a' }])
    expect(Object.isFrozen(ctx.llm.listProviders())).toBe(true)
    handle.replace(['b', 'c'])
    expect(seen).toHaveLength(2)
    expect(ctx.llm.hasProvider('a')).toBe(false)
    expect(ctx.llm.listProviders().map((p) => p.id)).toEqual(['b', 'c'])
    handle()
    handle()
    expect(seen).toHaveLength(3)
    expect(ctx.llm.listProviders()).toEqual([])
    expect(codeOf(() => handle.replace(['d']))).toBe('REGISTRATION_DISPOSED')
  })

  it('a throwing llm/adapters-updated listener does not undo the change', () => {
    const ctx = app()
    ctx.on('llm/adapters-updated', () => {
      throw new Error('listener broke')
    })
    const handle = ctx.llm.registerAdapter(['a'], adapter())
    expect(ctx.llm.hasProvider('a')).toBe(true)
    handle.replace(['b'])
    expect(ctx.llm.hasProvider('b')).toBe(true)
    handle()
    expect(ctx.llm.hasProvider('b')).toBe(false)
    expect(takeLogLines()).toEqual(Array(3).fill('warn llm: llm/adapters-updated listener threw: listener broke'))
  })

  it('the registration is an effect of the caller plugin: disposing it removes the routes', () => {
    const ctx = app()
    const fork = ctx.plugin({
      inject: ['llm'],
      apply(inner: Context) {
        inner.llm.registerAdapter(['owned'], adapter())
      },
    })
    expect(ctx.llm.hasProvider('owned')).toBe(true)
    fork.dispose()
    expect(ctx.llm.hasProvider('owned')).toBe(false)
  })

  it('unknown routes are NO_ADAPTER for every query', async () => {
    const llm = app().llm
    await expect(llm.listModels('nope')).rejects.toMatchObject({ code: 'NO_ADAPTER' })
    await expect(llm.resolveModel('nope', 'm')).rejects.toMatchObject({ code: 'NO_ADAPTER' })
    await expect(llm.prepareCall({ provider: 'nope', model: 'm' })).rejects.toMatchObject({ code: 'NO_ADAPTER' })
    expect(codeOf(() => llm.retryPolicy('nope'))).toBe('NO_ADAPTER')
  })
})

describe('model resolution', () => {
  it('default resolveModel, invalid metadata codes, INVALID_CATALOG and ABORTED', async () => {
    const llm = app().llm
    llm.registerAdapter(['plain'], adapter())
    expect(await llm.resolveModel('plain', 'x')).toEqual({ provider: 'plain', id: 'x', name: 'x' })
    const bad = (info: unknown) => adapter(undefined, { resolveModel: () => info as never })
    llm.registerAdapter(['info'], bad({ provider: 'info', id: 'other', name: 'n' }))
    llm.registerAdapter(['ctx'], bad({ provider: 'ctx', id: 'm', name: 'n', context: { contextWindow: 0 } }))
    llm.registerAdapter(['max'], bad({ provider: 'max', id: 'm', name: 'n', defaultMaxTokens: 1.5 }))
    llm.registerAdapter(['rea'], bad({ provider: 'rea', id: 'm', name: 'n', reasoning: { efforts: [] } }))
    await expect(llm.resolveModel('info', 'm')).rejects.toMatchObject({ code: 'INVALID_MODEL_INFO' })
    await expect(llm.resolveModel('ctx', 'm')).rejects.toMatchObject({ code: 'INVALID_MODEL_CONTEXT' })
    await expect(llm.resolveModel('max', 'm')).rejects.toMatchObject({ code: 'INVALID_MODEL_MAX_TOKENS' })
    await expect(llm.resolveModel('rea', 'm')).rejects.toMatchObject({ code: 'INVALID_MODEL_REASONING' })
    llm.registerAdapter(['cat'], adapter(undefined, { listModels: () => [{ provider: 'cat', id: 'a', name: '' }] }))
    await expect(llm.listModels('cat')).rejects.toMatchObject({ code: 'INVALID_CATALOG' })
    const controller = new AbortController()
    llm.registerAdapter(['slow'], adapter(undefined, { resolveModel: () => new Promise(() => {}) }))
    const pending = llm.resolveModel('slow', 'm', controller.signal)
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' })
  })

  it('prepareCall materializes defaults with flags; explicit values win; unsupported efforts fail', async () => {
    const llm = app().llm
    llm.registerAdapter(
      ['r'],
      adapter(undefined, {
        resolveModel: (provider, id) => ({
          provider,
          id,
          name: id,
          context: { contextWindow: 1000 },
          defaultMaxTokens: 64,
          ...(id === 'think'
            ? {
                reasoning: {
                  efforts: [{ id: reasoningEffortId('low'), name: 'Low' }],
                  defaultEffort: reasoningEffortId('low'),
                },
              }
            : {}),
        }),
      }),
    )
    const input = { provider: 'r', model: 'think' }
    const prepared = await llm.prepareCall(input)
    expect(prepared.config).toEqual({ provider: 'r', model: 'think', reasoningEffort: 'low', maxTokens: 64 })
    expect(prepared.adapterDefaults).toEqual({ reasoningEffort: true, maxTokens: true })
    expect(prepared.context).toEqual({ contextWindow: 1000 })
    expect(prepared.retryPolicy).toEqual(DEFAULT_RETRY_POLICY)
    expect(input).toEqual({ provider: 'r', model: 'think' })
    expect(Object.isFrozen(prepared)).toBe(true)
    const explicit = await llm.prepareCall({
      provider: 'r',
      model: 'think',
      maxTokens: 5000,
      reasoningEffort: reasoningEffortId('low'),
    })
    expect(explicit.config.maxTokens).toBe(5000)
    expect(explicit.adapterDefaults).toEqual({})
    await expect(
      llm.prepareCall({ provider: 'r', model: 'plain', reasoningEffort: reasoningEffortId('low') }),
    ).rejects.toMatchObject({
      code: 'UNSUPPORTED_REASONING_EFFORT',
    })
    await expect(
      llm.prepareCall({ provider: 'r', model: 'think', reasoningEffort: reasoningEffortId('max') }),
    ).rejects.toMatchObject({
      code: 'UNSUPPORTED_REASONING_EFFORT',
    })
  })
})

describe('prepared calls', () => {
  it('second dispatch and config drift throw the exact messages synchronously', async () => {
    const llm = app().llm
    llm.registerAdapter(['p'], adapter())
    const drift = await llm.prepareCall({ provider: 'p', model: 'm' })
    expect(() => drift.stream(req('p', 'm', { temperature: 0.5 }))).toThrow(
      new LlmError('prepared LLM call config changed before adapter dispatch', 'INVALID_PREPARED_CALL'),
    )
    expect(codeOf(() => drift.stream(req('p', 'other')))).toBe('INVALID_PREPARED_CALL')
    const once = await llm.prepareCall({ provider: 'p', model: 'm' })
    const chunks = await collect(once.stream(req()))
    expect(chunks.at(-1)).toEqual(STOP)
    try {
      once.stream(req())
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(LlmError)
      expect((error as LlmError).code).toBe('INVALID_PREPARED_CALL')
      expect((error as Error).message).toBe('a prepared LLM call can only be dispatched once')
    }
  })

  it('still dispatches to the captured adapter after its registration was disposed', async () => {
    const llm = app().llm
    const a = adapter()
    const handle = llm.registerAdapter(['p'], a)
    const prepared = await llm.prepareCall({ provider: 'p', model: 'm' })
    handle()
    const chunks = await collect(prepared.stream(req()))
    expect(chunks.at(-1)).toEqual(STOP)
    expect(a.requests).toHaveLength(1)
  })
})

describe('dispatch', () => {
  it('example: unregistered route with no listener → exactly one chunk, finish error NO_ADAPTER', async () => {
    const chunks = await collect(app().llm.stream(req('missing')))
    expect(chunks).toHaveLength(1)
    expect(chunks[0]).toMatchObject({ type: 'finish', reason: { kind: 'error', failure: { code: 'NO_ADAPTER' } } })
  })

  it('example: aborted call whose adapter throws ABORTED → exactly one chunk, finish aborted ABORTED', async () => {
    const llm = app().llm
    const controller = new AbortController()
    llm.registerAdapter(['p'], {
      async *stream() {
        throw new LlmError('request aborted', 'ABORTED')
      },
    })
    controller.abort()
    const chunks = await collect(llm.stream(req('p', 'm', { signal: controller.signal })))
    expect(chunks).toHaveLength(1)
    expect(chunks[0]).toMatchObject({ type: 'finish', reason: { kind: 'aborted', failure: { code: 'ABORTED' } } })
  })

  it('any other adapter error under an aborted signal is still kind aborted with code ABORTED', async () => {
    const llm = app().llm
    const controller = new AbortController()
    llm.registerAdapter(['p'], {
      async *stream() {
        controller.abort()
        throw new Error('socket closed')
      },
    })
    const chunks = await collect(llm.stream(req('p', 'm', { signal: controller.signal })))
    expect(chunks).toHaveLength(1)
    expect(chunks[0]).toMatchObject({ type: 'finish', reason: { kind: 'aborted', failure: { code: 'ABORTED' } } })
  })

  it('a stream without finish gets MALFORMED_RESPONSE with the exact message; chunks after finish are dropped', async () => {
    const llm = app().llm
    llm.registerAdapter(['nofinish'], adapter(text('a')))
    llm.registerAdapter(['trailing'], adapter([...text('a'), STOP, ...text('b', 1)]))
    const missing = await collect(llm.stream(req('nofinish')))
    expect(missing.at(-1)).toEqual({
      type: 'finish',
      reason: {
        kind: 'error',
        failure: { message: 'adapter stream ended without a finish chunk', code: 'MALFORMED_RESPONSE' },
      },
    })
    expect(missing).toHaveLength(4)
    const trailing = await collect(llm.stream(req('trailing')))
    expect(trailing).toHaveLength(4)
    expect(trailing.at(-1)).toEqual(STOP)
  })

  it('failure normalization: trusted failure, HarnessError {message, code}, anything else UNKNOWN via errorChain', async () => {
    const llm = app().llm
    const thrower = (value: unknown): LlmAdapter => ({
      async *stream() {
        throw value
      },
    })
    llm.registerAdapter(['trusted'], thrower(new LlmError('slow down', 'RATE_LIMIT', { status: 429 })))
    llm.registerAdapter(['harness'], thrower(new HarnessError('bad thing', 'SOME_CODE')))
    llm.registerAdapter(['other'], thrower(new Error('outer', { cause: new Error('inner') })))
    const last = async (p: string) => (await collect(llm.stream(req(p)))).at(-1)
    expect(await last('trusted')).toEqual({
      type: 'finish',
      reason: { kind: 'error', failure: { message: 'slow down', code: 'RATE_LIMIT', status: 429 } },
    })
    expect(await last('harness')).toEqual({
      type: 'finish',
      reason: { kind: 'error', failure: { message: 'bad thing', code: 'SOME_CODE' } },
    })
    expect(await last('other')).toEqual({
      type: 'finish',
      reason: { kind: 'error', failure: { message: 'outer: inner', code: 'UNKNOWN' } },
    })
  })

  it('llm/stream listeners: this is the runtime, same options, next() takes no args; listener errors stay thrown', async () => {
    const ctx = app()
    ctx.llm.registerAdapter(['p'], adapter())
    const options = req()
    const seen: unknown[] = []
    ctx.on('llm/stream', function (this: unknown, received, next) {
      seen.push(this, received)
      return next()
    })
    const chunks = await collect(ctx.llm.stream(options))
    expect(chunks.at(-1)).toEqual(STOP)
    // ctx.llm hands out a per-access tracker proxy, so compare by class and behaviour, not identity.
    expect(seen[0] instanceof LlmRuntime).toBe(true)
    expect((seen[0] as LlmRuntime).hasProvider('p')).toBe(true)
    expect(seen[1]).toBe(options)

    const broken = app()
    broken.on('llm/stream', () => {
      throw new Error('listener broke')
    })
    await expect(collect(broken.llm.stream(req('none')))).rejects.toThrow('listener broke')
  })

  it('stream() is lazy: no listener or adapter runs before the first next()', async () => {
    const ctx = app()
    const a = adapter()
    ctx.llm.registerAdapter(['p'], a)
    let calls = 0
    ctx.on('llm/stream', (_o, next) => {
      calls++
      return next()
    })
    const iterable = ctx.llm.stream(req())
    await Promise.resolve()
    expect(calls).toBe(0)
    expect(a.requests).toHaveLength(0)
    await collect(iterable)
    expect(calls).toBe(1)
  })

  it('unprepared dispatch materializes model defaults into a frozen copy', async () => {
    const llm = app().llm
    const a = adapter(undefined, { resolveModel: (provider, id) => ({ provider, id, name: id, defaultMaxTokens: 77 }) })
    llm.registerAdapter(['p'], a)
    const options = req()
    await collect(llm.stream(options))
    expect(a.requests[0]).not.toBe(options)
    expect(a.requests[0]!.maxTokens).toBe(77)
    expect(Object.isFrozen(a.requests[0])).toBe(true)
    expect(options.maxTokens).toBeUndefined()
  })
})

describe('retry policy data', () => {
  it('DEFAULT_RETRY_POLICY matches the spec exactly; partial adapter policies merge over it', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      mode: 'normal',
      maxRetries: 2,
      retryableCodes: ['EMPTY_RESPONSE', 'RATE_LIMIT', 'SERVER', 'TIMEOUT', 'TRANSPORT'],
      initialDelayMs: 500,
      maxDelayMs: 10000,
      jitterRatio: 0.1,
    })
    const llm = app().llm
    llm.registerAdapter(['p'], adapter(undefined, { retryPolicy: () => ({ maxRetries: 5 }) }))
    expect(llm.retryPolicy('p')).toEqual({ ...DEFAULT_RETRY_POLICY, maxRetries: 5 })
  })

  it('validateRetryPolicy rejects unknown keys, non-positive delays, initial > max, bad jitter, empty/duplicate codes', () => {
    const ok = { ...DEFAULT_RETRY_POLICY }
    expect(validateRetryPolicy(ok)).toEqual(DEFAULT_RETRY_POLICY)
    expect(() => validateRetryPolicy({ ...ok, extra: 1 })).toThrow()
    expect(() => validateRetryPolicy({ ...ok, initialDelayMs: 0 })).toThrow()
    expect(() => validateRetryPolicy({ ...ok, initialDelayMs: 20000 })).toThrow()
    expect(() => validateRetryPolicy({ ...ok, jitterRatio: -0.1 })).toThrow()
    expect(() => validateRetryPolicy({ ...ok, jitterRatio: 1.1 })).toThrow()
    expect(() => validateRetryPolicy({ ...ok, retryableCodes: [] })).toThrow()
    expect(() => validateRetryPolicy({ ...ok, retryableCodes: ['A', 'A'] })).toThrow()
  })
})

describe('BlockAssembler', () => {
  it('delta-only text, first start/end wins, tool id synthesis, frozen message with replayState', () => {
    const asm = new BlockAssembler()
    asm.push({ type: 'text-delta', index: 0, text: 'He' })
    asm.push({ type: 'text-delta', index: 0, text: 'y' })
    asm.push({ type: 'tool-call-delta', index: 1, id: callId(''), name: 'f', argumentsDelta: '{"a"' })
    asm.push({ type: 'tool-call-delta', index: 1, id: callId(''), argumentsDelta: ':1}' })
    asm.push({ type: 'block-end', index: 2, block: { type: 'reasoning', text: 'first' } })
    asm.push({ type: 'block-end', index: 2, block: { type: 'reasoning', text: 'second' } })
    asm.push({ type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } })
    asm.push({ type: 'usage', usage: { inputTokens: 2, outputTokens: 3 } })
    asm.push({ type: 'finish', reason: { kind: 'tool-calls' }, replayState: { r: 1 } })
    expect(asm.blocks()).toEqual([
      { type: 'text', text: 'Hey' },
      { type: 'tool-call', id: 'call-1', name: 'f', arguments: '{"a":1}' },
      { type: 'reasoning', text: 'first' },
    ])
    expect(asm.usage).toEqual({ inputTokens: 2, outputTokens: 3 })
    const message = asm.message({ provider: 'p', model: 'm' })
    expect(message.role).toBe('assistant')
    expect(message.source).toEqual({ kind: 'model', provider: 'p', model: 'm', replayState: { r: 1 } })
    expect(Object.isFrozen(message)).toBe(true)
  })

  it('finish defaults to stop; max-tokens drops tool calls; an un-ended unknown type throws TypeError', () => {
    const asm = new BlockAssembler()
    expect(asm.finish).toEqual({ kind: 'stop' })
    asm.push({ type: 'block-start', index: 0, blockType: 'text' })
    asm.push({ type: 'text-delta', index: 0, text: 'partial' })
    asm.push({ type: 'block-start', index: 1, blockType: 'tool-call' })
    asm.push({ type: 'tool-call-delta', index: 1, id: callId('c'), name: 'f', argumentsDelta: '{"trunc' })
    asm.push({ type: 'finish', reason: { kind: 'max-tokens' } })
    expect(asm.blocks()).toEqual([{ type: 'text', text: 'partial' }])
    const odd = new BlockAssembler()
    odd.push({ type: 'block-start', index: 0, blockType: 'image' })
    expect(() => odd.blocks()).toThrow(TypeError)
  })
})
