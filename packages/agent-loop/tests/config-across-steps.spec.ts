/**
 * Which call config a request starts from. A new agent instance (also one resumed over an old log) starts from its
 * own options; only an explicitly chosen reasoning effort carries over, and only on the same route. Later requests
 * of an instance start from what the previous request used, minus the values the adapter supplied, so a route
 * switch gets that route's own defaults. `request/context` follows route and advertised window.
 */
import type { GenerateOptions, LlmCallConfig } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { boot, say, user, type Harness } from './harness.js'

/** An adapter stream that records the request and plays the harness script, like the harness's `mock` route. */
const scripted = (h: Harness) =>
  async function* (request: GenerateOptions) {
    h.requests.push(request)
    yield* await h.script.shift()!(request)
  }

/** Provider `think` (or the names given): a reasoning model whose default effort and token budget the test can change. */
function thinkAdapter(h: Harness, defaults: { effort: string; maxTokens: number }, providers = ['think']) {
  h.ctx.llm.registerAdapter(providers, {
    stream: scripted(h),
    resolveModel: (provider: string, model: string) =>
      ({
        provider,
        id: model,
        name: model,
        defaultMaxTokens: defaults.maxTokens,
        reasoning: {
          efforts: ['low', 'medium', 'high'].map((id) => ({ id, name: id })),
          defaultEffort: defaults.effort,
        },
      }) as never,
  })
}

/** Records every seed the `agent/request` waterfall starts from; `rewrite` may change the proposal. */
function seeds(h: Harness, rewrite: (seed: LlmCallConfig) => LlmCallConfig = (s) => s): LlmCallConfig[] {
  const seen: LlmCallConfig[] = []
  h.ctx.on('agent/request', async (_p, next) => {
    const seed = (await next()) as LlmCallConfig
    seen.push(seed)
    return rewrite(seed)
  })
  return seen
}

async function turn(agent: { followup(m: never): void; whenIdle(): Promise<void> }, h: Harness, text: string) {
  h.script.push(say(`re: ${text}`))
  agent.followup(user(text) as never)
  await agent.whenIdle()
}

const lastTurnEnd = (agent: { session: { events: readonly { type: string; data: unknown }[] } }) =>
  (agent.session.events.findLast((e) => e.type === 'turn/end')!.data as { reason: unknown }).reason

const headers = (agent: { session: { events: readonly { type: string; data: unknown }[] } }) =>
  agent.session.events.filter((e) => e.type === 'request/header').map((e) => e.data as { reason: string; header: any })

describe('a new instance over an old log starts from its own options', () => {
  it('a different model in the options wins over the logged one, and the header is logged as resume', async () => {
    const h = boot()
    const first = h.agent({ model: 'm1' })
    const chosen = seeds(h, (seed) => ({ ...seed, temperature: 0.3 }))
    await turn(first, h, 'one')
    const log = first.session.events
    await first.dispose()

    const h2 = boot()
    const seen = seeds(h2)
    const second = h2.agent({ model: 'm2', seed: log })
    await turn(second, h2, 'two')
    expect(chosen).toEqual([{ provider: 'mock', model: 'm1' }])
    // the temperature a listener of the first app chose is not part of the new instance's options
    expect(seen).toEqual([{ provider: 'mock', model: 'm2' }])
    expect(h2.requests[0]).toMatchObject({ provider: 'mock', model: 'm2' })
    expect(h2.requests[0]!.temperature).toBeUndefined()
    expect(headers(second).at(-1)).toMatchObject({
      reason: 'resume',
      header: { config: { provider: 'mock', model: 'm2' } },
    })
  })

  it('an effort the adapter supplied is not carried over: the resumed route gets its current default', async () => {
    const h = boot()
    thinkAdapter(h, { effort: 'low', maxTokens: 1000 })
    const first = h.agent({ provider: 'think', model: 'deep' })
    await turn(first, h, 'one')
    expect(headers(first)[0]!.header).toMatchObject({
      config: { reasoningEffort: 'low' },
      adapterDefaults: { reasoningEffort: true },
    })
    const log = first.session.events
    await first.dispose()

    const h2 = boot()
    thinkAdapter(h2, { effort: 'medium', maxTokens: 1000 })
    const seen = seeds(h2)
    const second = h2.agent({ provider: 'think', model: 'deep', seed: log })
    await turn(second, h2, 'two')
    expect(seen).toEqual([{ provider: 'think', model: 'deep' }])
    expect(h2.requests[0]!.reasoningEffort).toBe('medium')
  })

  it('an explicitly chosen effort carries over on the same route only', async () => {
    const h = boot()
    thinkAdapter(h, { effort: 'low', maxTokens: 1000 })
    seeds(h, (seed) => ({ ...seed, reasoningEffort: 'high' as never }))
    const first = h.agent({ provider: 'think', model: 'deep' })
    await turn(first, h, 'one')
    const log = first.session.events
    await first.dispose()

    for (const [provider, model, expected] of [
      ['think', 'deep', { provider: 'think', model: 'deep', reasoningEffort: 'high' }],
      ['think', 'shallow', { provider: 'think', model: 'shallow' }],
      // another provider serving a model of the same name is another route
      ['ponder', 'deep', { provider: 'ponder', model: 'deep' }],
    ] as const) {
      const h2 = boot()
      thinkAdapter(h2, { effort: 'low', maxTokens: 1000 }, ['think', 'ponder'])
      const seen = seeds(h2)
      const again = h2.agent({ provider, model, seed: log })
      await turn(again, h2, 'two')
      expect(seen).toEqual([expected])
      expect(h2.requests[0]!.reasoningEffort).toBe(expected.provider === 'think' && model === 'deep' ? 'high' : 'low')
    }
  })

  it('an effort chosen on a route that supplies no defaults carries over (its header has no adapterDefaults)', async () => {
    const h = boot()
    // efforts to choose from, but no default effort and no default token budget
    const plain = (x: Harness) =>
      x.ctx.llm.registerAdapter(['plain'], {
        stream: scripted(x),
        resolveModel: (provider: string, model: string) =>
          ({
            provider,
            id: model,
            name: model,
            reasoning: { efforts: ['low', 'high'].map((id) => ({ id, name: id })) },
          }) as never,
      })
    plain(h)
    seeds(h, (seed) => ({ ...seed, reasoningEffort: 'high' as never }))
    const first = h.agent({ provider: 'plain', model: 'p1' })
    await turn(first, h, 'one')
    const logged = headers(first)[0]!.header
    expect(logged.config).toEqual({ provider: 'plain', model: 'p1', reasoningEffort: 'high' })
    expect(logged).not.toHaveProperty('adapterDefaults')
    const log = first.session.events
    await first.dispose()

    const h2 = boot()
    plain(h2)
    const seen = seeds(h2)
    const again = h2.agent({ provider: 'plain', model: 'p1', seed: log })
    await turn(again, h2, 'two')
    expect(seen).toEqual([{ provider: 'plain', model: 'p1', reasoningEffort: 'high' }])
    expect(h2.requests[0]!.reasoningEffort).toBe('high')
    expect(lastTurnEnd(again)).toEqual({ kind: 'completed' })
  })
})

describe('later requests of one instance start from the previous request', () => {
  it('an explicit setting sticks for later turns; adapter-supplied values are re-derived after a route switch', async () => {
    const h = boot()
    const tokens = new Map([
      ['deep', 1000],
      ['wide', 4000],
    ])
    h.ctx.llm.registerAdapter(['think'], {
      stream: scripted(h),
      resolveModel: (provider: string, model: string) => ({
        provider,
        id: model,
        name: model,
        defaultMaxTokens: tokens.get(model),
      }),
    })
    let rewrite: (seed: LlmCallConfig) => LlmCallConfig = (seed) => ({ ...seed, temperature: 0.2 })
    const seen = seeds(h, (seed) => rewrite(seed))
    const agent = h.agent({ provider: 'think', model: 'deep' })
    await turn(agent, h, 'one')
    rewrite = (seed) => seed
    await turn(agent, h, 'two')
    rewrite = (seed) => ({ ...seed, model: 'wide' })
    await turn(agent, h, 'three')
    rewrite = (seed) => seed
    await turn(agent, h, 'four')
    expect(seen).toEqual([
      { provider: 'think', model: 'deep' },
      { provider: 'think', model: 'deep', temperature: 0.2 },
      { provider: 'think', model: 'deep', temperature: 0.2 },
      { provider: 'think', model: 'wide', temperature: 0.2 },
    ])
    expect(h.requests.map((r) => r.maxTokens)).toEqual([1000, 1000, 4000, 4000])
  })

  it('an explicit maxTokens option is part of every seed and is not an adapter default', async () => {
    const h = boot()
    thinkAdapter(h, { effort: 'low', maxTokens: 1000 })
    const seen = seeds(h)
    const agent = h.agent({ provider: 'think', model: 'deep', maxTokens: 64 })
    await turn(agent, h, 'one')
    await turn(agent, h, 'two')
    expect(seen).toEqual([
      { provider: 'think', model: 'deep', maxTokens: 64 },
      { provider: 'think', model: 'deep', maxTokens: 64 },
    ])
    expect(headers(agent)[0]!.header.adapterDefaults).toEqual({ reasoningEffort: true })
  })
})

describe('request/context follows the route and the advertised window', () => {
  it('a new record for a new model, a new provider or a new window; none while all three stay', async () => {
    const h = boot()
    const windows: Record<string, number | undefined> = {
      'p1/a': 1000,
      'p1/b': 1000,
      'p2/a': 1000,
      'p1/c': 2000,
      'p1/d': undefined,
    }
    for (const provider of ['p1', 'p2']) {
      h.ctx.llm.registerAdapter([provider], {
        stream: scripted(h),
        resolveModel: (p: string, model: string) => {
          const window = windows[`${p}/${model}`]
          return {
            provider: p,
            id: model,
            name: model,
            ...(window === undefined ? {} : { context: { contextWindow: window } }),
          }
        },
      })
    }
    let route = { provider: 'p1', model: 'a' }
    seeds(h, (seed) => ({ ...seed, ...route }))
    const agent = h.agent({ provider: 'p1', model: 'a' })
    const contexts = () => agent.session.events.filter((e) => e.type === 'request/context').map((e) => e.data)
    const steps: [string, string, number?][] = [
      ['p1', 'a'],
      ['p1', 'a'], // nothing changed: no record
      ['p2', 'a'], // only the provider
      ['p1', 'a'], // only the provider, back
      ['p1', 'b'], // only the model
      ['p1', 'b', 3000], // only the advertised window
      ['p1', 'c'],
      ['p1', 'd'], // no window advertised
      ['p1', 'd'],
    ]
    for (const [provider, model, window] of steps) {
      if (window !== undefined) windows[`${provider}/${model}`] = window
      route = { provider, model }
      await turn(agent, h, `${provider}/${model}`)
    }
    expect(contexts()).toEqual([
      { provider: 'p1', model: 'a', contextWindow: 1000 },
      { provider: 'p2', model: 'a', contextWindow: 1000 },
      { provider: 'p1', model: 'a', contextWindow: 1000 },
      { provider: 'p1', model: 'b', contextWindow: 1000 },
      { provider: 'p1', model: 'b', contextWindow: 3000 },
      { provider: 'p1', model: 'c', contextWindow: 2000 },
      { provider: 'p1', model: 'd' },
    ])
  })
})
