import { describe, expect, it, vi } from 'vitest'
import { Context } from 'cordis'
import { ConfigError, DEFAULT_RETRY_POLICY, LlmError, LlmRuntime, type LlmAdapter } from '@bridle/llm'
import { createApp, scriptedAdapter } from './helpers.js'
import { takeLogLines } from '../../../tests/support/logs.js'

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    return (error as LlmError).code
  }
  return undefined
}

describe('LlmRuntime config', () => {
  it('accepts no options: any key is a ConfigError naming the plugin', () => {
    expect(LlmRuntime.Config(undefined)).toEqual({})
    expect(LlmRuntime.Config({})).toEqual({})
    expect(() => LlmRuntime.Config({ retries: 3 } as never)).toThrow(ConfigError)
    expect(() => LlmRuntime.Config({ retries: 3 } as never)).toThrow(/^llm: invalid config: /)
    const ctx = new Context()
    expect(() => ctx.plugin(LlmRuntime, { retries: 3 } as never)).not.toThrow()
    expect((ctx as Partial<Context>).llm).toBeUndefined()
    expect(takeLogLines()).toEqual(['error app: ConfigError: llm: invalid config: (root): Unrecognized key: "retries"'])
  })

  it('provides ctx.llm immediately', () => {
    const ctx = createApp()
    expect(ctx.llm).toBeDefined()
    expect(ctx.llm.listProviders()).toEqual([])
  })
})

describe('registerAdapter: failures leave state unchanged', () => {
  it('DUPLICATE_ADAPTER names the provider and registers nothing (all-or-nothing)', () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(['deepseek'], scriptedAdapter())
    const events = vi.fn()
    ctx.on('llm/adapters-updated', events)
    let error: unknown
    try {
      ctx.llm.registerAdapter(['fresh', 'deepseek'], scriptedAdapter())
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(LlmError)
    expect((error as LlmError).code).toBe('DUPLICATE_ADAPTER')
    expect((error as LlmError).message).toContain('"deepseek"')
    expect(ctx.llm.hasProvider('fresh')).toBe(false)
    expect(ctx.llm.listProviders().map((p) => p.id)).toEqual(['deepseek'])
    expect(events).not.toHaveBeenCalled()
  })

  it('INVALID_ADAPTER for every misuse, with nothing registered', () => {
    const ctx = createApp()
    const ok = scriptedAdapter()
    const cases: [readonly string[], unknown][] = [
      [[], ok],
      [[''], ok],
      [['has space'], ok],
      [['x'.repeat(65)], ok],
      [[42 as never], ok],
      [['a', 'a'], ok],
      [['a'], null],
      [['a'], 'adapter'],
      [['a'], {}],
      [['a'], { stream: 1 }],
      [['a'], { ...ok, providerInfo: () => ({ id: 'other', name: 'A' }) }],
      [['a'], { ...ok, providerInfo: () => ({ id: 'a', name: '' }) }],
      [
        ['a'],
        {
          ...ok,
          providerInfo: () => {
            throw new Error('boom')
          },
        },
      ],
      [['a'], { ...ok, retryPolicy: () => ({ maxRetries: -1 }) }],
      [['a'], { ...ok, retryPolicy: () => ({ initialDelayMs: 20_000 }) }],
      [['a'], { ...ok, retryPolicy: () => ({ jitterRatio: 2 }) }],
      [['a'], { ...ok, retryPolicy: () => ({ retryableCodes: [] as string[] }) }],
      [['a'], { ...ok, retryPolicy: () => ({ retryableCodes: ['X', 'X'] }) }],
      [['a'], { ...ok, retryPolicy: () => ({ backoff: 'exp' }) }],
      [['a'], { ...ok, retryPolicy: () => ({ initialDelayMs: 0 }) }],
    ]
    cases.forEach(([names, adapter], i) => {
      expect(
        codeOf(() => ctx.llm.registerAdapter(names, adapter as LlmAdapter)),
        `case ${i}`,
      ).toBe('INVALID_ADAPTER')
    })
    expect(ctx.llm.listProviders()).toEqual([])
    expect(codeOf(() => ctx.llm.registerAdapter(['x'.repeat(64)], ok))).toBeUndefined()
  })
})

describe('registerAdapter: queries and lifecycle', () => {
  it('lists providers in registration order with frozen info and policy', () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(
      ['b', 'a'],
      scriptedAdapter(undefined, { providerInfo: (p) => ({ id: p, name: `Route ${p}` }) }),
    )
    ctx.llm.registerAdapter(['c'], scriptedAdapter(undefined, { retryPolicy: () => ({ maxRetries: 5 }) }))
    const list = ctx.llm.listProviders()
    expect(list).toEqual([
      { id: 'b', name: 'Route b' },
      { id: 'a', name: 'Route a' },
      { id: 'c', name: 'c' },
    ])
    expect(Object.isFrozen(list) && Object.isFrozen(list[0])).toBe(true)
    expect(ctx.llm.retryPolicy('a')).toEqual(DEFAULT_RETRY_POLICY)
    expect(ctx.llm.retryPolicy('c')).toEqual({ ...DEFAULT_RETRY_POLICY, maxRetries: 5 })
    expect(Object.isFrozen(ctx.llm.retryPolicy('c'))).toBe(true)
    expect(codeOf(() => ctx.llm.retryPolicy('zzz'))).toBe('NO_ADAPTER')
  })

  it('reads provider info and retry policy once per route at registration', () => {
    const ctx = createApp()
    const providerInfo = vi.fn((p: string) => ({ id: p, name: p.toUpperCase() }))
    const retryPolicy = vi.fn(() => undefined)
    ctx.llm.registerAdapter(['a'], scriptedAdapter(undefined, { providerInfo, retryPolicy }))
    ctx.llm.listProviders()
    ctx.llm.listProviders()
    ctx.llm.retryPolicy('a')
    expect(providerInfo).toHaveBeenCalledTimes(1)
    expect(retryPolicy).toHaveBeenCalledTimes(1)
  })

  it('emits one llm/adapters-updated per change; a throwing listener does not undo it', () => {
    const ctx = createApp()
    let count = 0
    ctx.on('llm/adapters-updated', () => {
      count++
      throw new Error('listener bug')
    })
    const handle = ctx.llm.registerAdapter(['a'], scriptedAdapter())
    expect(count).toBe(1)
    expect(ctx.llm.hasProvider('a')).toBe(true)
    handle.replace(['b'])
    expect(count).toBe(2)
    expect(ctx.llm.hasProvider('b')).toBe(true)
    handle()
    expect(count).toBe(3)
    expect(ctx.llm.hasProvider('b')).toBe(false)
    handle()
    expect(count).toBe(3)
    expect(takeLogLines()).toEqual(Array(3).fill('warn llm: llm/adapters-updated listener threw: listener bug'))
  })

  it('disposing the registering plugin removes its routes', () => {
    const ctx = createApp()
    const fork = ctx.plugin({
      inject: ['llm'],
      apply: (child: Context) => {
        child.llm.registerAdapter(['plugin-route'], scriptedAdapter())
      },
    })
    expect(ctx.llm.hasProvider('plugin-route')).toBe(true)
    let updates = 0
    ctx.on('llm/adapters-updated', () => updates++)
    fork.dispose()
    expect(ctx.llm.hasProvider('plugin-route')).toBe(false)
    expect(updates).toBe(1)
    // the name is free again
    expect(() => ctx.llm.registerAdapter(['plugin-route'], scriptedAdapter())).not.toThrow()
  })

  it('replace validates the whole new set first and keeps the old one on failure', () => {
    const ctx = createApp()
    ctx.llm.registerAdapter(['taken'], scriptedAdapter())
    const handle = ctx.llm.registerAdapter(['a', 'b'], scriptedAdapter())
    expect(codeOf(() => handle.replace(['c', 'taken']))).toBe('DUPLICATE_ADAPTER')
    expect(codeOf(() => handle.replace(['c', 'c']))).toBe('INVALID_ADAPTER')
    expect(codeOf(() => handle.replace(['bad name']))).toBe('INVALID_ADAPTER')
    expect(ctx.llm.listProviders().map((p) => p.id)).toEqual(['taken', 'a', 'b'])
    handle.replace(['b', 'c'])
    expect(ctx.llm.listProviders().map((p) => p.id)).toEqual(['taken', 'b', 'c'])
    expect(handle.providers).toEqual(['b', 'c'])
    handle.replace([])
    expect(ctx.llm.listProviders().map((p) => p.id)).toEqual(['taken'])
  })

  it('replace has no observable gap', () => {
    const ctx = createApp()
    const handle = ctx.llm.registerAdapter(['old'], scriptedAdapter())
    const seen: [boolean, boolean][] = []
    ctx.on('llm/adapters-updated', () => {
      seen.push([ctx.llm.hasProvider('old'), ctx.llm.hasProvider('new')])
    })
    let polling = true
    const samples: [boolean, boolean][] = []
    const poll = async () => {
      while (polling) {
        samples.push([ctx.llm.hasProvider('old'), ctx.llm.hasProvider('new')])
        await Promise.resolve()
      }
    }
    const poller = poll()
    handle.replace(['new'])
    polling = false
    return poller.then(() => {
      expect(seen).toEqual([[false, true]])
      for (const [hasOld, hasNew] of samples) expect(hasOld || hasNew).toBe(true)
    })
  })

  it('REGISTRATION_DISPOSED after disposal', () => {
    const ctx = createApp()
    const handle = ctx.llm.registerAdapter(['a'], scriptedAdapter())
    handle()
    expect(handle.disposed).toBe(true)
    let error: unknown
    try {
      handle.replace(['a'])
    } catch (e) {
      error = e
    }
    expect((error as LlmError).code).toBe('REGISTRATION_DISPOSED')
    expect((error as LlmError).message).toContain('"a"')
    expect(ctx.llm.hasProvider('a')).toBe(false)
  })
})
