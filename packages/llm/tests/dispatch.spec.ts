import { describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import {
  createAssistantMessage,
  createUserMessage,
  deepFreeze,
  HarnessError,
  LlmError,
  markLoopRequest,
  streamGrammarViolations,
  type GenerateOptions,
  type LlmAdapter,
  type StreamChunk,
} from '@bridle/llm'
import { collect, createApp, request, scriptedAdapter, STOP, textChunks } from './helpers.js'

function finishOf(chunks: StreamChunk[]) {
  expect(chunks).toHaveLength(1)
  const [chunk] = chunks
  expect(chunk!.type).toBe('finish')
  return (chunk as Extract<StreamChunk, { type: 'finish' }>).reason
}

describe('terminal stage: every throw becomes one terminal finish chunk', () => {
  it('no adapter and no listener → finish error NO_ADAPTER', async () => {
    const ctx = createApp()
    const reason = finishOf(await collect(ctx.llm.stream(request('nowhere'))))
    expect(reason).toMatchObject({ kind: 'error', failure: { code: 'NO_ADAPTER' } })
    expect((reason as { failure: { message: string } }).failure.message).toContain('"nowhere"')
  })

  it('resolution failures (bad model info, unsupported effort)', async () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(
      ['bad'],
      scriptedAdapter(undefined, { resolveModel: () => ({ provider: 'bad', id: 'x', name: '' }) }),
    )
    ctx.llm.registerAdapter(['plain'], scriptedAdapter())
    expect(finishOf(await collect(ctx.llm.stream(request('bad'))))).toMatchObject({
      kind: 'error',
      failure: { code: 'INVALID_MODEL_INFO' },
    })
    expect(
      finishOf(await collect(ctx.llm.stream(request('plain', 'm', { reasoningEffort: 'high' as never })))),
    ).toMatchObject({
      kind: 'error',
      failure: { code: 'UNSUPPORTED_REASONING_EFFORT' },
    })
  })

  it('stream() throwing synchronously, and iterator creation throwing', async () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(['sync'], {
      stream() {
        throw new LlmError('no key', 'MISSING_CREDENTIAL', { status: 401 })
      },
    })
    ctx.llm.registerAdapter(['iter'], {
      stream() {
        return {
          [Symbol.asyncIterator]() {
            throw new TypeError('not today')
          },
        }
      },
    })
    expect(finishOf(await collect(ctx.llm.stream(request('sync'))))).toEqual({
      kind: 'error',
      failure: { message: 'no key', code: 'MISSING_CREDENTIAL', status: 401 },
    })
    expect(finishOf(await collect(ctx.llm.stream(request('iter'))))).toEqual({
      kind: 'error',
      failure: { message: 'not today', code: 'UNKNOWN' },
    })
  })

  it('an adapter throwing mid-stream: earlier chunks pass, then exactly one finish', async () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(['p'], {
      async *stream() {
        yield { type: 'block-start', index: 0, blockType: 'text' }
        yield { type: 'text-delta', index: 0, text: 'partial' }
        throw new LlmError('upstream reset', 'TRANSPORT', { requestId: 'req-9' })
      },
    })
    const chunks = await collect(ctx.llm.stream(request()))
    expect(chunks).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'partial' },
      {
        type: 'finish',
        reason: { kind: 'error', failure: { message: 'upstream reset', code: 'TRANSPORT', requestId: 'req-9' } },
      },
    ])
    expect(streamGrammarViolations(chunks)).toEqual([])
  })

  it('normalizes foreign errors structurally, HarnessErrors by code, anything else as UNKNOWN', async () => {
    const thrown: unknown[] = [
      Object.assign(new Error('copy'), {
        code: 'RATE_LIMIT',
        failure: { message: 'slow', code: 'RATE_LIMIT', providerRetryAfterMs: 2000 },
      }),
      new HarnessError('harness', 'SERVER'),
      new Error('outer', { cause: new Error('inner') }),
      'a string',
    ]
    const expected = [
      { message: 'slow', code: 'RATE_LIMIT', providerRetryAfterMs: 2000 },
      { message: 'harness', code: 'SERVER' },
      { message: 'outer: inner', code: 'UNKNOWN' },
      { message: 'a string', code: 'UNKNOWN' },
    ]
    for (let i = 0; i < thrown.length; i++) {
      const ctx = createApp()
      ctx.llm.registerAdapter(['p'], {
        async *stream() {
          throw thrown[i]
        },
      })
      expect(finishOf(await collect(ctx.llm.stream(request())))).toEqual({ kind: 'error', failure: expected[i] })
    }
  })

  it('an aborted call yields exactly one finish aborted ABORTED', async () => {
    const ctx = createApp()
    const controller = new AbortController()
    ctx.llm.registerAdapter(['p'], {
      async *stream(options) {
        controller.abort()
        if (options.signal?.aborted) throw new LlmError('aborted by caller', 'ABORTED')
        yield STOP
      },
    })
    ctx.llm.registerAdapter(['q'], {
      async *stream(options) {
        options.signal?.throwIfAborted()
        throw new Error('socket closed')
      },
    })
    expect(finishOf(await collect(ctx.llm.stream(request('p', 'm', { signal: controller.signal }))))).toEqual({
      kind: 'aborted',
      failure: { message: 'aborted by caller', code: 'ABORTED' },
    })
    // a different error while the caller's signal is aborted is still reported as ABORTED
    const other = new AbortController()
    const pending = collect(ctx.llm.stream(request('q', 'm', { signal: other.signal })))
    other.abort()
    const reason = finishOf(await pending)
    expect(reason.kind).toBe('aborted')
    expect((reason as { failure: { code: string } }).failure.code).toBe('ABORTED')
  })

  it('an adapter stream that ends without finish gets MALFORMED_RESPONSE', async () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(['p'], scriptedAdapter(textChunks('hi')))
    const chunks = await collect(ctx.llm.stream(request()))
    expect(chunks.slice(0, 3)).toEqual(textChunks('hi'))
    expect(chunks[3]).toEqual({
      type: 'finish',
      reason: {
        kind: 'error',
        failure: { code: 'MALFORMED_RESPONSE', message: 'adapter stream ended without a finish chunk' },
      },
    })
  })
})

describe('terminal stage: stream shape and cleanup', () => {
  it('drops chunks after finish and awaits the adapter iterator return()', async () => {
    const ctx = createApp()
    const log: string[] = []
    ctx.llm.registerAdapter(['p'], {
      async *stream() {
        try {
          yield* textChunks('a')
          yield STOP
          log.push('pulled past finish')
          yield* textChunks('trailing', 1)
        } finally {
          await Promise.resolve()
          log.push('adapter cleanup')
        }
      },
    })
    const chunks: StreamChunk[] = []
    for await (const chunk of ctx.llm.stream(request())) chunks.push(chunk)
    log.push('consumer done')
    expect(chunks).toEqual([...textChunks('a'), STOP])
    expect(log).toEqual(['adapter cleanup', 'consumer done'])
  })

  it('an early consumer return() reaches the adapter before it resolves', async () => {
    const ctx = createApp()
    const log: string[] = []
    ctx.llm.registerAdapter(['p'], {
      async *stream() {
        try {
          for (let i = 0; ; i++) yield { type: 'text-delta', index: 0, text: String(i) } as StreamChunk
        } finally {
          await new Promise((resolve) => setImmediate(resolve))
          log.push('adapter returned')
        }
      },
    })
    const iterator = ctx.llm.stream(request())[Symbol.asyncIterator]()
    await iterator.next()
    await iterator.next()
    await iterator.return!()
    log.push('consumer return resolved')
    expect(log).toEqual(['adapter returned', 'consumer return resolved'])
  })

  it('errors from adapter cleanup stay thrown', async () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(['p'], {
      async *stream() {
        try {
          yield STOP
        } finally {
          // biome-ignore lint/correctness/noUnsafeFinally: the test is about a throw from an adapter's cleanup
          throw new Error('cleanup failed')
        }
      },
    })
    await expect(collect(ctx.llm.stream(request()))).rejects.toThrow('cleanup failed')
  })

  it('returns immediately and starts work on the first next()', async () => {
    const ctx = createApp()
    let listenerCalls = 0
    ctx.on('llm/stream', (_options, next) => {
      listenerCalls++
      return next()
    })
    const adapter = scriptedAdapter()
    ctx.llm.registerAdapter(['p'], adapter)
    const iterable = ctx.llm.stream(request())
    await Promise.resolve()
    expect(listenerCalls).toBe(0)
    expect(adapter.requests).toHaveLength(0)
    const iterator = iterable[Symbol.asyncIterator]()
    await iterator.next()
    expect(listenerCalls).toBe(1)
    expect(adapter.requests).toHaveLength(1)
  })
})

describe('llm/stream waterfall', () => {
  it('honours listener order: prepend first, then registration order; global listeners heard', async () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(['p'], scriptedAdapter())
    const order: string[] = []
    const listen = (name: string, target: Context = ctx, options?: { prepend?: boolean; global?: boolean }) =>
      target.on(
        'llm/stream',
        async function* (this: unknown, _options: GenerateOptions, next: () => AsyncIterable<StreamChunk>) {
          order.push(`${name}:in`)
          yield* next()
          order.push(`${name}:out`)
        },
        options,
      )
    listen('a')
    listen('b')
    listen('first', ctx, { prepend: true })
    listen('global', ctx.isolate('llm'), { global: true })
    listen('isolated-not-global', ctx.isolate('llm'))
    await collect(ctx.llm.stream(request()))
    expect(order).toEqual(['first:in', 'a:in', 'b:in', 'global:in', 'global:out', 'b:out', 'a:out', 'first:out'])
  })

  it('every listener gets the same options object; this is the runtime', async () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(['p'], scriptedAdapter())
    const seen: unknown[] = []
    let self: unknown
    ctx.on('llm/stream', function (options, next) {
      seen.push(options)
      self = this
      return next()
    })
    ctx.on('llm/stream', (options, next) => {
      seen.push(options)
      return next()
    })
    const options = request()
    await collect(ctx.llm.stream(options))
    expect(seen).toEqual([options, options])
    expect(seen[0]).toBe(options)
    expect(typeof (self as { registerAdapter?: unknown }).registerAdapter).toBe('function')
  })

  it('a short-circuit listener serves a route that has no adapter', async () => {
    const ctx = createApp()
    ctx.on('llm/stream', (options, next) => {
      if (options.provider !== 'replay') return next()
      return (async function* () {
        yield* textChunks('replayed')
        yield STOP
      })()
    })
    expect(await collect(ctx.llm.stream(request('replay')))).toEqual([...textChunks('replayed'), STOP])
    expect(finishOf(await collect(ctx.llm.stream(request('other'))))).toMatchObject({ failure: { code: 'NO_ADAPTER' } })
  })

  it('errors thrown by listeners stay thrown', async () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(['p'], scriptedAdapter())
    ctx.on('llm/stream', () => {
      throw new Error('listener exploded')
    })
    await expect(collect(ctx.llm.stream(request()))).rejects.toThrow('listener exploded')
  })
})

describe('request handed to the adapter', () => {
  it('a frozen marked request reaches the adapter unchanged (same identity)', async () => {
    const ctx = createApp()
    const adapter = scriptedAdapter()
    ctx.llm.registerAdapter(['p'], adapter)
    const history = [
      createUserMessage('hi'),
      createAssistantMessage({
        content: [{ type: 'text', text: 'yo' }],
        source: { provider: 'p', model: 'm', replayState: { r: 1 } },
      }),
    ]
    const options = markLoopRequest(
      deepFreeze({ ...request(), messages: history, signal: new AbortController().signal }),
    )
    await collect(ctx.llm.stream(options))
    expect(adapter.requests[0]).toBe(options)
    const prepared = await ctx.llm.prepareCall({ provider: 'p', model: 'm' })
    await collect(prepared.stream(options))
    expect(adapter.requests[1]).toBe(options)
  })

  it('unprepared dispatch materializes model defaults into a deep-frozen copy', async () => {
    const ctx = createApp()
    const adapter = scriptedAdapter(undefined, {
      resolveModel: (p, m) => ({
        provider: p,
        id: m,
        name: m,
        defaultMaxTokens: 777,
        reasoning: { efforts: [{ id: 'x' as never, name: 'X' }], defaultEffort: 'x' as never },
      }),
    })
    ctx.llm.registerAdapter(['p'], adapter)
    const signal = new AbortController().signal
    const messages = [createUserMessage('q')]
    const options = request('p', 'm', { messages, signal })
    await collect(ctx.llm.stream(options))
    const sent = adapter.requests[0]!
    expect(sent).not.toBe(options)
    expect(sent).toMatchObject({ provider: 'p', model: 'm', maxTokens: 777, reasoningEffort: 'x' })
    expect(sent.messages[0]).toBe(messages[0])
    expect(sent.signal).toBe(signal)
    expect(Object.isFrozen(sent)).toBe(true)
    expect('maxTokens' in options).toBe(false)
  })

  it('strips replayState only from messages of routes owned by another adapter instance', async () => {
    const ctx = createApp()
    const mine = scriptedAdapter()
    const theirs = scriptedAdapter()
    ctx.llm.registerAdapter(['mine', 'mine-alias'], mine)
    ctx.llm.registerAdapter(['theirs'], theirs)
    const assistant = (provider: string) =>
      createAssistantMessage({
        content: [{ type: 'text', text: provider }],
        source: { provider, model: 'm', replayState: { from: provider } },
      })
    const own = assistant('mine')
    const alias = assistant('mine-alias')
    const foreign = assistant('theirs')
    const gone = assistant('unregistered')
    const user = createUserMessage('u')
    const options = deepFreeze({ ...request('mine'), messages: [user, own, foreign, alias, gone] })
    await collect(ctx.llm.stream(options))
    const sent = mine.requests[0]!
    expect(sent).not.toBe(options)
    expect(sent.messages[0]).toBe(user)
    expect(sent.messages[1]).toBe(own)
    expect(sent.messages[3]).toBe(alias)
    for (const i of [2, 4]) {
      const original = options.messages[i]!
      const stripped = sent.messages[i]!
      expect(stripped.id).toBe(original.id)
      expect('replayState' in stripped.source).toBe(false)
      expect(stripped.content).toBe(original.content)
      expect(Object.isFrozen(stripped)).toBe(true)
    }
    expect((options.messages[2]!.source as { replayState?: unknown }).replayState).toEqual({ from: 'theirs' })
  })

  it('re-decides on every call over the same history: a provider that changes owner changes what is stripped', async () => {
    const ctx = createApp()
    const mine = scriptedAdapter()
    const theirs = scriptedAdapter()
    const mineReg = ctx.llm.registerAdapter(['mine'], mine)
    const theirsReg = ctx.llm.registerAdapter(['theirs'], theirs)
    const foreign = createAssistantMessage({
      content: [{ type: 'text', text: 't' }],
      source: { provider: 'theirs', model: 'm', replayState: { x: 1 } },
    })
    const options = deepFreeze({ ...request('mine'), messages: [createUserMessage('u'), foreign] })
    await collect(ctx.llm.stream(options))
    expect('replayState' in mine.requests[0]!.messages[1]!.source).toBe(false)
    theirsReg()
    mineReg.replace(['mine', 'theirs'])
    await collect(ctx.llm.stream(options))
    expect(mine.requests[1]).toBe(options)
    const grown = deepFreeze({ ...options, messages: [...options.messages, createUserMessage('v')] })
    await collect(ctx.llm.stream(grown))
    expect(mine.requests[2]).toBe(grown)
    mineReg.replace(['mine'])
    await collect(ctx.llm.stream(grown))
    expect('replayState' in mine.requests[3]!.messages[1]!.source).toBe(false)
  })
})

describe('adapter interface defaults', () => {
  it('an adapter with only stream() works everywhere', async () => {
    const ctx = createApp()
    const adapter: LlmAdapter = {
      stream: async function* () {
        yield STOP
      },
    }
    ctx.llm.registerAdapter(['min'], adapter)
    expect(ctx.llm.listProviders()).toEqual([{ id: 'min', name: 'min' }])
    expect(await ctx.llm.listModels('min')).toEqual([])
    expect(await ctx.llm.resolveModel('min', 'x')).toEqual({ provider: 'min', id: 'x', name: 'x' })
    expect(await collect(ctx.llm.stream(request('min')))).toEqual([STOP])
  })
})
