import { Context, CordisError, Service } from 'cordis'
import { describe, expect, it } from 'vitest'
import { takeLogLines } from '../../../tests/support/logs.js'
import { makeRoot, pluginCtx } from './helpers.js'

/** Probes for the upstream cordis 3.18.1 behaviour this package relies on. */

const FAILED = 3 // ScopeStatus.FAILED (a const enum upstream)

describe('upstream cordis 3.18.1 facts', () => {
  it('an immediate service is exposed as soon as ctx.plugin returns; a deferred one only after start', async () => {
    const { root } = makeRoot()
    class Now extends Service {
      constructor(ctx: Context) {
        super(ctx, 'probeNow', true)
      }
    }
    class Later extends Service {
      constructor(ctx: Context) {
        super(ctx, 'probeLater')
      }
    }
    root.plugin(Now)
    root.plugin(Later)
    expect(root.get('probeNow')).toBeInstanceOf(Now)
    expect(root.get('probeLater')).toBeUndefined()
    await root.start()
    await Promise.resolve()
    expect(root.get('probeLater')).toBeInstanceOf(Later)
    class Direct extends Service {
      constructor(ctx: Context) {
        super(ctx, 'probeDirect', true)
      }
    }
    new Direct(root)
    expect(root.get('probeDirect')).toBeUndefined()
  })

  it('effect runs its callback synchronously and returns an idempotent, non-thenable disposer', () => {
    const { root } = makeRoot()
    const order: string[] = []
    const dispose = root.effect(() => {
      order.push('callback')
      return () => {
        order.push('undo')
        return 'undo-result' as unknown as undefined
      }
    })
    order.push('after')
    expect(order).toEqual(['callback', 'after'])
    expect('then' in dispose).toBe(false)
    expect(dispose()).toBe('undo-result')
    expect(dispose()).toBeUndefined()
    expect(order).toEqual(['callback', 'after', 'undo'])
    // an object without `dispose` fails on `.bind`; a bare `undefined` fails one step earlier
    expect(() => root.effect((() => ({})) as never)).toThrow("Cannot read properties of undefined (reading 'bind')")
    expect(() => root.effect((() => undefined) as never)).toThrow(
      "Cannot read properties of undefined (reading 'dispose')",
    )
  })

  it('effect, on and plugin throw INACTIVE_EFFECT on a disposed fork', () => {
    const { root } = makeRoot()
    const host = pluginCtx(root)
    expect(host.dispose()).toBe(true)
    expect(host.dispose()).toBe(false)
    for (const attempt of [
      () => host.ctx.effect(() => () => {}),
      () => host.ctx.on('x/ping', () => {}),
      () => host.ctx.plugin(function late() {}),
    ]) {
      let caught: unknown
      try {
        attempt()
      } catch (error) {
        caught = error
      }
      expect(caught).toBeInstanceOf(CordisError)
      expect(caught).toMatchObject({ code: 'INACTIVE_EFFECT', message: 'cannot create effect on inactive context' })
    }
  })

  it('teardown runs disposers in insertion order, synchronously, routing errors to internal/error', async () => {
    const { root, errors } = makeRoot()
    const host = pluginCtx(root)
    const order: string[] = []
    const boom = new Error('disposer failed')
    host.ctx.effect(() => () => {
      order.push('one')
      throw boom
    })
    host.ctx.effect(() => () => {
      order.push('two')
    })
    pluginCtx(host.ctx).ctx.effect(() => () => {
      order.push('nested')
    })
    expect(host.dispose()).toBe(true)
    expect(order).toEqual(['one', 'two', 'nested'])
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(errors).toContain(boom)
    expect(takeLogLines()).toEqual(['error app: Error: disposer failed'])
  })

  it('exposes Context.filter, a public filterHooks and no waterfall mode', () => {
    const { root } = makeRoot()
    expect(Context.filter).toBe(Symbol.for('cordis.filter'))
    expect(typeof root.lifecycle.filterHooks).toBe('function')
    expect((root as unknown as { waterfall?: unknown }).waterfall).toBeUndefined()
    const a = () => {}
    const b = () => {}
    root.on('x/ping', a)
    root.on('x/ping', b, { prepend: true })
    const callbacks = root.lifecycle._hooks['x/ping']!.map((hook) => hook.callback)
    expect(callbacks).toHaveLength(2)
    expect(root.lifecycle.filterHooks(root.lifecycle._hooks['x/ping']!)).not.toBe(root.lifecycle._hooks['x/ping'])
  })

  it('serial and bail return the first value that is not null, false or undefined', async () => {
    const { root } = makeRoot()
    root.on('x/ask', () => null)
    root.on('x/ask', () => false as never)
    root.on('x/ask', () => undefined)
    root.on('x/ask', () => '')
    root.on('x/ask', () => 'late')
    expect(root.bail('x/ask')).toBe('')
    expect(await root.serial('x/ask')).toBe('')
  })

  it('ctx.plugin returns a non-thenable ForkScope; config errors mark the fork FAILED', () => {
    const { root, errors } = makeRoot()
    const bad = new Error('bad config')
    const plugin = Object.assign(function configured() {}, {
      Config: () => {
        throw bad
      },
    })
    const fork = root.plugin(plugin, undefined)
    expect('then' in fork).toBe(false)
    expect(fork.status).toBe(FAILED)
    expect(fork.error).toBe(bad)
    expect(errors).toContain(bad)
    expect(takeLogLines()).toEqual(['error app: Error: bad config'])
  })

  it('a constructor throw marks only the runtime as failed', async () => {
    const { root } = makeRoot()
    const boom = new Error('ctor failed')
    class Broken {
      constructor() {
        throw boom
      }
    }
    const fork = root.plugin(Broken as never)
    await Promise.resolve()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(fork.runtime.status).toBe(FAILED)
    expect(fork.runtime.error).toBe(boom)
    expect(fork.status).not.toBe(FAILED)
    expect(takeLogLines()).toEqual(['error app: Error: ctor failed'])
  })

  it('warns when a plugin reads a service it did not inject', () => {
    const { root, warnings } = makeRoot()
    class Svc extends Service {
      constructor(ctx: Context) {
        super(ctx, 'probeSvc', true)
      }
    }
    root.plugin(Svc)
    pluginCtx(root).ctx.get('probeSvc')
    void (pluginCtx(root).ctx as unknown as { probeSvc: unknown }).probeSvc
    expect(warnings.map((w) => (w as Error).message)).toEqual([
      'property probeSvc is not registered, declare it as `inject` to suppress this warning',
    ])
    expect(takeLogLines()).toEqual([
      'warn app: Error: property probeSvc is not registered, declare it as `inject` to suppress this warning',
    ])
  })
})
