import { describe, expect, it } from 'vitest'
import { LlmError, type GenerateOptions, type LlmAdapter, type LlmModelInfo } from '@bridle/llm'
import { collect, createApp, request, scriptedAdapter, textChunks, STOP } from './helpers.js'

function syncError(fn: () => unknown): LlmError | undefined {
  try {
    fn()
  } catch (error) {
    return error as LlmError
  }
  return undefined
}

describe('prepared calls', () => {
  it('are one-shot: the second dispatch throws synchronously', async () => {
    const ctx = createApp()
    const adapter = scriptedAdapter()
    ctx.llm.registerAdapter(['p'], adapter)
    const prepared = await ctx.llm.prepareCall({ provider: 'p', model: 'm' })
    const first = prepared.stream(request())
    const error = syncError(() => prepared.stream(request()))
    expect(error).toBeInstanceOf(LlmError)
    expect(error!.code).toBe('INVALID_PREPARED_CALL')
    expect(error!.message).toBe('a prepared LLM call can only be dispatched once')
    expect(await collect(first)).toEqual([...textChunks('ok'), STOP])
    expect(adapter.requests).toHaveLength(1)
  })

  it('reject a request whose call config changed after prepare', async () => {
    const ctx = createApp()
    const adapter = scriptedAdapter()
    ctx.llm.registerAdapter(['p'], adapter)
    ctx.llm.registerAdapter(['q'], scriptedAdapter())
    const drifted: Partial<GenerateOptions>[] = [
      { model: 'other' },
      { provider: 'q' },
      { temperature: 0.5 },
      { maxTokens: 10 },
      { stop: ['b', 'a'] },
      { stop: ['a'] },
      { stop: undefined },
    ]
    for (const change of drifted) {
      const prepared = await ctx.llm.prepareCall({ provider: 'p', model: 'm', stop: ['a', 'b'] })
      const error = syncError(() => prepared.stream({ ...request('p', 'm', { stop: ['a', 'b'] }), ...change }))
      expect(error?.code, JSON.stringify(change)).toBe('INVALID_PREPARED_CALL')
      expect(error!.message).toBe('prepared LLM call config changed before adapter dispatch')
    }
    expect(adapter.requests).toHaveLength(0)
  })

  it('must be dispatched with the materialized defaults', async () => {
    const ctx = createApp()
    const adapter = scriptedAdapter(undefined, {
      resolveModel: (p, m) => ({ provider: p, id: m, name: m, defaultMaxTokens: 512 }),
    })
    ctx.llm.registerAdapter(['p'], adapter)
    const prepared = await ctx.llm.prepareCall({ provider: 'p', model: 'm' })
    expect(syncError(() => prepared.stream(request()))?.code).toBe('INVALID_PREPARED_CALL')
    const again = await ctx.llm.prepareCall({ provider: 'p', model: 'm' })
    const options = { ...request(), ...again.config }
    await collect(again.stream(options))
    expect(adapter.requests[0]).toBe(options)
  })

  it('NO_ADAPTER is thrown for an unowned route', async () => {
    const ctx = createApp()
    await expect(ctx.llm.prepareCall({ provider: 'nobody', model: 'm' })).rejects.toMatchObject({ code: 'NO_ADAPTER' })
  })

  it('an adapter re-registered during resolveModel still serves the prepared call', async () => {
    const ctx = createApp()
    let release!: (info: LlmModelInfo) => void
    const first = scriptedAdapter([...textChunks('from first'), STOP], {
      resolveModel: () => new Promise<LlmModelInfo>((resolve) => (release = resolve)),
    })
    const handle = ctx.llm.registerAdapter(['p'], first)
    const pending = ctx.llm.prepareCall({ provider: 'p', model: 'm' })
    await Promise.resolve()
    handle()
    const second = scriptedAdapter([...textChunks('from second'), STOP])
    ctx.llm.registerAdapter(['p'], second)
    release({ provider: 'p', id: 'm', name: 'm' })
    const prepared = await pending
    const chunks = await collect(prepared.stream(request()))
    expect(chunks).toContainEqual({ type: 'text-delta', index: 0, text: 'from first' })
    expect(first.requests).toHaveLength(1)
    expect(second.requests).toHaveLength(0)
  })

  it('still dispatches after its registration was disposed, and skips resolution', async () => {
    const ctx = createApp()
    let resolves = 0
    const adapter: LlmAdapter & { requests: GenerateOptions[] } = scriptedAdapter(undefined, {
      resolveModel: (p, m) => {
        resolves++
        return { provider: p, id: m, name: m }
      },
    })
    const handle = ctx.llm.registerAdapter(['p'], adapter)
    const prepared = await ctx.llm.prepareCall({ provider: 'p', model: 'm' })
    handle()
    const chunks = await collect(prepared.stream(request()))
    expect(chunks.at(-1)).toEqual(STOP)
    expect(resolves).toBe(1)
    expect(adapter.requests).toHaveLength(1)
  })

  it('goes through the llm/stream waterfall like ctx.llm.stream', async () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(['p'], scriptedAdapter())
    const seen: GenerateOptions[] = []
    ctx.on('llm/stream', (options, next) => {
      seen.push(options)
      return next()
    })
    const prepared = await ctx.llm.prepareCall({ provider: 'p', model: 'm' })
    const options = request()
    await collect(prepared.stream(options))
    expect(seen).toEqual([options])
    expect(seen[0]).toBe(options)
  })
})
