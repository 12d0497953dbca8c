import { describe, expect, it } from 'vitest'
import { reasoningEffortId, type LlmError, type LlmModelInfo } from '@bridle/llm'
import { createApp, scriptedAdapter } from './helpers.js'

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
  } catch (error) {
    return (error as LlmError).code
  }
  return undefined
}

const effort = (id: string) => ({ id: reasoningEffortId(id), name: id })

function appWithModel(info: (provider: string, model: string) => unknown) {
  const ctx = createApp()
  ctx.llm.registerAdapter(['p'], scriptedAdapter(undefined, { resolveModel: info as never }))
  return ctx
}

describe('resolveModel validation', () => {
  it('INVALID_MODEL_INFO for identity or name problems', async () => {
    const bad = [
      (p: string) => ({ provider: p, id: 'other', name: 'n' }),
      (_p: string, m: string) => ({ provider: 'elsewhere', id: m, name: 'n' }),
      (p: string, m: string) => ({ provider: p, id: m, name: '' }),
      () => null,
      (p: string, m: string) => ({ provider: p, id: m, name: 'n', extra: () => 1 }),
    ]
    for (const info of bad)
      expect(await codeOf(appWithModel(info).llm.resolveModel('p', 'm'))).toBe('INVALID_MODEL_INFO')
  })

  it('INVALID_MODEL_CONTEXT, INVALID_MODEL_MAX_TOKENS, INVALID_MODEL_REASONING', async () => {
    const ok = (p: string, m: string) => ({ provider: p, id: m, name: m })
    const cases: [Record<string, unknown>, string][] = [
      [{ context: { contextWindow: 0 } }, 'INVALID_MODEL_CONTEXT'],
      [{ context: { contextWindow: 1.5 } }, 'INVALID_MODEL_CONTEXT'],
      [{ context: {} }, 'INVALID_MODEL_CONTEXT'],
      [{ defaultMaxTokens: -5 }, 'INVALID_MODEL_MAX_TOKENS'],
      [{ defaultMaxTokens: 2 ** 60 }, 'INVALID_MODEL_MAX_TOKENS'],
      [{ reasoning: { efforts: [] } }, 'INVALID_MODEL_REASONING'],
      [{ reasoning: { efforts: [effort('low'), effort('low')] } }, 'INVALID_MODEL_REASONING'],
      [{ reasoning: { efforts: [effort('low')], defaultEffort: 'high' } }, 'INVALID_MODEL_REASONING'],
      [{ reasoning: { efforts: [{ id: '', name: 'x' }] } }, 'INVALID_MODEL_REASONING'],
    ]
    for (const [extra, code] of cases) {
      const ctx = appWithModel((p, m) => ({ ...ok(p, m), ...extra }))
      expect(await codeOf(ctx.llm.resolveModel('p', 'm')), JSON.stringify(extra)).toBe(code)
    }
  })

  it('INVALID_CATALOG for a bad listModels result', async () => {
    const entry = (id: string, provider = 'p') => ({ provider, id, name: id })
    const cases: unknown[] = [
      'nope',
      [entry('a', 'q')],
      [entry('a'), entry('a')],
      [{ provider: 'p', id: '', name: 'x' }],
      [{ provider: 'p', id: 'a', name: '' }],
    ]
    for (const list of cases) {
      const ctx = createApp()
      ctx.llm.registerAdapter(['p'], scriptedAdapter(undefined, { listModels: () => list as never }))
      expect(await codeOf(ctx.llm.listModels('p'))).toBe('INVALID_CATALOG')
    }
    const ctx = createApp()
    ctx.llm.registerAdapter(['p'], scriptedAdapter(undefined, { listModels: async () => [entry('a'), entry('b')] }))
    const catalog = await ctx.llm.listModels('p')
    expect(catalog.map((m) => m.id)).toEqual(['a', 'b'])
    expect(Object.isFrozen(catalog) && Object.isFrozen(catalog[0])).toBe(true)
    ctx.llm.registerAdapter(['bare'], scriptedAdapter())
    expect(await ctx.llm.listModels('bare')).toEqual([])
    expect(await codeOf(ctx.llm.listModels('none'))).toBe('NO_ADAPTER')
  })

  it('aborting during resolveModel rejects with ABORTED even if the adapter never answers', async () => {
    const ctx = appWithModel(() => new Promise<LlmModelInfo>(() => {}))
    const controller = new AbortController()
    const pending = ctx.llm.resolveModel('p', 'm', controller.signal)
    controller.abort()
    expect(await codeOf(pending)).toBe('ABORTED')
    const already = new AbortController()
    already.abort()
    expect(await codeOf(ctx.llm.resolveModel('p', 'm', already.signal))).toBe('ABORTED')
  })

  it('passes the signal to the adapter and returns a deep-frozen copy; the default is {provider, id, name}', async () => {
    let seen: AbortSignal | undefined
    const raw = { provider: 'p', id: 'm', name: 'Model', context: { contextWindow: 1000 } }
    const ctx = appWithModel((_p, _m) => raw)
    const signal = new AbortController().signal
    const info = await ctx.llm.resolveModel('p', 'm', signal)
    expect(info).toEqual(raw)
    expect(info).not.toBe(raw)
    expect(Object.isFrozen(info.context)).toBe(true)
    const ctx2 = createApp()
    ctx2.llm.registerAdapter(
      ['q'],
      scriptedAdapter(undefined, {
        resolveModel: (p, m, s) => {
          seen = s
          return { provider: p, id: m, name: m }
        },
      }),
    )
    await ctx2.llm.resolveModel('q', 'x', signal)
    expect(seen).toBe(signal)
    ctx2.llm.registerAdapter(['d'], scriptedAdapter())
    expect(await ctx2.llm.resolveModel('d', 'any-model')).toEqual({ provider: 'd', id: 'any-model', name: 'any-model' })
    expect(await codeOf(ctx2.llm.resolveModel('none', 'm'))).toBe('NO_ADAPTER')
  })
})

describe('config resolution through prepareCall', () => {
  const reasoningModel = (p: string, m: string) => ({
    provider: p,
    id: m,
    name: m,
    defaultMaxTokens: 4096,
    reasoning: { efforts: [effort('low'), effort('high')], defaultEffort: reasoningEffortId('high') },
  })

  it('UNSUPPORTED_REASONING_EFFORT when the model has no reasoning info or does not list the effort', async () => {
    const plain = appWithModel((p, m) => ({ provider: p, id: m, name: m }))
    expect(
      await codeOf(plain.llm.prepareCall({ provider: 'p', model: 'm', reasoningEffort: reasoningEffortId('low') })),
    ).toBe('UNSUPPORTED_REASONING_EFFORT')
    const reasoning = appWithModel(reasoningModel)
    expect(
      await codeOf(reasoning.llm.prepareCall({ provider: 'p', model: 'm', reasoningEffort: reasoningEffortId('max') })),
    ).toBe('UNSUPPORTED_REASONING_EFFORT')
  })

  it('materializes defaultMaxTokens and defaultEffort with flags, without mutating the input', async () => {
    const ctx = appWithModel(reasoningModel)
    const proposed = { provider: 'p', model: 'm' }
    const prepared = await ctx.llm.prepareCall(proposed)
    expect(prepared.config).toEqual({ provider: 'p', model: 'm', maxTokens: 4096, reasoningEffort: 'high' })
    expect(prepared.adapterDefaults).toEqual({ maxTokens: true, reasoningEffort: true })
    expect(proposed).toEqual({ provider: 'p', model: 'm' })
    expect(
      Object.isFrozen(prepared) && Object.isFrozen(prepared.config) && Object.isFrozen(prepared.adapterDefaults),
    ).toBe(true)
  })

  it('explicit values win and are not flagged; no clamping against the context window', async () => {
    const ctx = appWithModel((p, m) => ({ ...reasoningModel(p, m), context: { contextWindow: 100 } }))
    const prepared = await ctx.llm.prepareCall({
      provider: 'p',
      model: 'm',
      maxTokens: 1_000_000,
      reasoningEffort: reasoningEffortId('low'),
      stop: ['x'],
    })
    expect(prepared.config).toEqual({
      provider: 'p',
      model: 'm',
      maxTokens: 1_000_000,
      reasoningEffort: 'low',
      stop: ['x'],
    })
    expect(prepared.adapterDefaults).toEqual({})
    expect(prepared.context).toEqual({ contextWindow: 100 })
    expect(prepared.model.name).toBe('m')
  })

  it('a model without defaults leaves the config alone and has no context', async () => {
    const ctx = appWithModel((p, m) => ({ provider: p, id: m, name: m }))
    const prepared = await ctx.llm.prepareCall({ provider: 'p', model: 'm', temperature: 0.2 })
    expect(prepared.config).toEqual({ provider: 'p', model: 'm', temperature: 0.2 })
    expect('context' in prepared).toBe(false)
    expect(prepared.retryPolicy.maxRetries).toBe(2)
  })
})
