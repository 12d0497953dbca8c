import type { Context } from 'cordis'
import fc from 'fast-check'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createScope, type Scoped, scopeTarget, waterfall, type WaterfallArgs } from '@bridle/scope'
import type { Payload } from './events.js'
import { makeRoot } from './helpers.js'

type Next = () => unknown
const on = (ctx: Context, listener: (...args: any[]) => unknown, options?: { prepend?: boolean; global?: boolean }) =>
  ctx.on('test/sync', listener as never, options)

describe('waterfall failures', () => {
  it('needs a fallback function as its last argument', () => {
    const { root } = makeRoot()
    const call = waterfall as unknown as (...args: unknown[]) => unknown
    const message = '@bridle/scope: waterfall "test/sync" needs a fallback function as its last argument'
    expect(() => call(root, null, 'test/sync')).toThrow(new TypeError(message))
    expect(() => call(root, null, 'test/sync', { trail: [] }, 'x')).toThrow(new TypeError(message))
    expect(() => call(root, null, 'test/sync', () => 'f', { trail: [] })).toThrow(TypeError)
  })

  it('propagates a synchronous listener throw synchronously; inner listeners and fallback never run', () => {
    const { root } = makeRoot()
    const boom = new Error('outer failed')
    const ran: string[] = []
    on(root, () => {
      throw boom
    })
    on(root, (_p: Payload, _t: string, next: Next) => (ran.push('inner'), next()))
    expect(() => waterfall(root, null, 'test/sync', { trail: [] }, 't', () => (ran.push('fallback'), 'f'))).toThrow(
      boom,
    )
    expect(ran).toEqual([])
  })

  it('propagates a fallback throw through next() to the outer listener, which may catch it', () => {
    const { root } = makeRoot()
    const boom = new Error('fallback failed')
    on(root, (_p: Payload, _t: string, next: Next) => {
      try {
        return next()
      } catch (error) {
        return `caught ${(error as Error).message}`
      }
    })
    const result = waterfall(root, null, 'test/sync', { trail: [] }, 't', () => {
      throw boom
    })
    expect(result).toBe('caught fallback failed')
    const { root: bare } = makeRoot()
    expect(() =>
      waterfall(bare, null, 'test/sync', { trail: [] }, 't', () => {
        throw boom
      }),
    ).toThrow(boom)
  })

  it('delivers an async rejection through the returned promise', async () => {
    const { root } = makeRoot()
    const boom = new Error('inner rejected')
    root.on('test/wf', async (_p, next) => `outer(${await next()})`)
    root.on('test/wf', async () => {
      throw boom
    })
    const result = waterfall(root, null, 'test/wf', { trail: [] }, async () => 'f')
    expect(result).toBeInstanceOf(Promise)
    await expect(result).rejects.toBe(boom)
  })
})

describe('waterfall composition', () => {
  it('calls the fallback with the args when no listener is admitted, returning its value as-is', () => {
    const { root } = makeRoot()
    const payload = { trail: [] }
    const received: unknown[][] = []
    const result = waterfall(root, null, 'test/sync', payload, 'tag', (...args) => {
      received.push(args)
      return 'fallback'
    })
    expect(result).toBe('fallback')
    expect(received).toEqual([[payload, 'tag']])
    expect(received[0]![0]).toBe(payload)
  })

  it('nests listeners around the fallback in registration order', async () => {
    const { root } = makeRoot()
    root.on('test/wf', async (p, next) => {
      p.trail.push('a>')
      const inner = await next()
      p.trail.push('<a')
      return `a(${inner})`
    })
    root.on('test/wf', async (p, next) => {
      p.trail.push('b>')
      const inner = await next()
      p.trail.push('<b')
      return `b(${inner})`
    })
    const payload: Payload = { trail: [] }
    const result = await waterfall(root, null, 'test/wf', payload, async (p) => {
      p.trail.push('fallback')
      return 'f'
    })
    expect(result).toBe('a(b(f))')
    expect(payload.trail).toEqual(['a>', 'b>', 'fallback', '<b', '<a'])
  })

  it('runs prepended listeners first, newest prepend outermost', () => {
    const { root } = makeRoot()
    const order: string[] = []
    const mk = (label: string) => (_p: Payload, _t: string, next: Next) => (order.push(label), next())
    on(root, mk('push1'))
    on(root, mk('pre1'), { prepend: true })
    on(root, mk('push2'))
    on(root, mk('pre2'), { prepend: true })
    waterfall(root, null, 'test/sync', { trail: [] }, 't', () => 'f')
    expect(order).toEqual(['pre2', 'pre1', 'push1', 'push2'])
  })

  it('orders any mix of prepend/push registrations like upstream does (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 12 }), (prepends) => {
        const { root } = makeRoot()
        const order: number[] = []
        prepends.forEach((prepend, index) => {
          on(root, (_p: Payload, _t: string, next: Next) => (order.push(index), next()), { prepend })
        })
        let fallbackRuns = 0
        waterfall(root, null, 'test/sync', { trail: [] }, 't', () => (fallbackRuns++, 'f'))
        const expected = [
          ...prepends.flatMap((p, i) => (p ? [i] : [])).reverse(),
          ...prepends.flatMap((p, i) => (p ? [] : [i])),
        ]
        expect(order).toEqual(expected)
        expect(fallbackRuns).toBe(1)
      }),
    )
  })

  it('short-circuits when a listener does not call next', () => {
    const { root } = makeRoot()
    const ran: string[] = []
    on(root, (_p: Payload, _t: string, next: Next) => (ran.push('outer'), `outer(${next()})`))
    on(root, () => (ran.push('stopper'), 'stopped'))
    on(root, (_p: Payload, _t: string, next: Next) => (ran.push('inner'), next()))
    const result = waterfall(root, null, 'test/sync', { trail: [] }, 't', () => (ran.push('fallback'), 'f'))
    expect(result).toBe('outer(stopped)')
    expect(ran).toEqual(['outer', 'stopper'])
  })

  it('lets the outer listener rewrite the result after next()', () => {
    const { root } = makeRoot()
    on(root, (_p: Payload, _t: string, next: Next) => String(next()).toUpperCase())
    expect(waterfall(root, null, 'test/sync', { trail: [] }, 't', () => 'quiet')).toBe('QUIET')
  })

  it('gives every listener and the fallback the same argument objects; data flows inward by mutation', () => {
    const { root } = makeRoot()
    const payload: Payload = { trail: [] }
    const seen: unknown[] = []
    on(root, (p: Payload, t: string, next: Next) => {
      seen.push(p, t)
      p.trail.push('set by outer')
      return (next as (ignored: string) => unknown)('ignored')
    })
    on(root, (p: Payload, t: string, next: Next) => (seen.push(p, t), next()))
    const result = waterfall(root, null, 'test/sync', payload, 'tag', (p, t) => {
      seen.push(p, t)
      return p.trail.join(',')
    })
    expect(result).toBe('set by outer')
    expect(seen).toEqual([payload, 'tag', payload, 'tag', payload, 'tag'])
    for (const value of seen.filter((v) => typeof v === 'object')) expect(value).toBe(payload)
  })
})

describe('next() is memoised per position', () => {
  it('runs the inner chain once; later calls replay the same value', () => {
    const { root } = makeRoot()
    let innerRuns = 0
    let fallbackRuns = 0
    on(root, (_p: Payload, _t: string, next: Next) => `${next()}|${next()}|${next()}`)
    on(root, (_p: Payload, _t: string, next: Next) => (innerRuns++, `inner(${next()})`))
    const result = waterfall(root, null, 'test/sync', { trail: [] }, 't', () => (fallbackRuns++, 'f'))
    expect(result).toBe('inner(f)|inner(f)|inner(f)')
    expect(innerRuns).toBe(1)
    expect(fallbackRuns).toBe(1)
  })

  it('replays the same promise object', async () => {
    const { root } = makeRoot()
    const promises: unknown[] = []
    root.on('test/wf', (_p, next) => {
      promises.push(next(), next())
      return promises[0] as Promise<string>
    })
    let fallbackRuns = 0
    await expect(waterfall(root, null, 'test/wf', { trail: [] }, async () => (fallbackRuns++, 'f'))).resolves.toBe('f')
    expect(promises[0]).toBe(promises[1])
    expect(fallbackRuns).toBe(1)
  })

  it('replays a synchronous throw without re-running the inner chain', () => {
    const { root } = makeRoot()
    let fallbackRuns = 0
    const caught: unknown[] = []
    on(root, (_p: Payload, _t: string, next: Next) => {
      for (let i = 0; i < 2; i++) {
        try {
          next()
        } catch (error) {
          caught.push(error)
        }
      }
      return 'recovered'
    })
    const boom = new Error('once')
    const result = waterfall(root, null, 'test/sync', { trail: [] }, 't', () => {
      fallbackRuns++
      throw boom
    })
    expect(result).toBe('recovered')
    expect(caught).toEqual([boom, boom])
    expect(fallbackRuns).toBe(1)
  })
})

describe('waterfall admission and binding', () => {
  it('filters by a scope carrier, admits global listeners, and binds this to the carrier', () => {
    const { root } = makeRoot()
    const mine = {}
    const sibling = {}
    const order: string[] = []
    const thisValues: unknown[] = []
    const mk = (label: string) =>
      function (this: unknown, _p: Payload, _t: string, next: Next) {
        order.push(label)
        thisValues.push(this)
        return next()
      }
    on(root, mk('untagged'))
    on(createScope(root, mine).ctx, mk('mine'))
    on(createScope(root, sibling).ctx, mk('sibling'))
    on(createScope(root, sibling).ctx, mk('sibling-global'), { global: true })
    const carrier = scopeTarget(root, mine)
    waterfall(root, carrier, 'test/sync', { trail: [] }, 't', () => 'f')
    expect(order).toEqual(['untagged', 'mine', 'sibling-global'])
    expect(thisValues).toEqual([carrier, carrier, carrier])

    order.length = 0
    waterfall(root, scopeTarget(root, undefined), 'test/sync', { trail: [] }, 't', () => 'f')
    expect(order).toEqual(['untagged', 'sibling-global'])
  })

  it('admits every listener when thisArg is null or undefined', () => {
    const { root } = makeRoot()
    const order: string[] = []
    on(root, (_p: Payload, _t: string, next: Next) => (order.push('untagged'), next()))
    on(createScope(root, {}).ctx, (_p: Payload, _t: string, next: Next) => (order.push('tagged'), next()))
    waterfall(root, null, 'test/sync', { trail: [] }, 't', () => 'f')
    waterfall(root, undefined, 'test/sync', { trail: [] }, 't', () => 'f')
    expect(order).toEqual(['untagged', 'tagged', 'untagged', 'tagged'])
  })

  it('skips listeners of a disposed scope', async () => {
    const { root } = makeRoot()
    const key = {}
    const scope = createScope(root, key)
    const order: string[] = []
    on(scope.ctx, (_p: Payload, _t: string, next: Next) => (order.push('scoped'), next()))
    await scope.dispose()
    waterfall(root, scopeTarget(root, key), 'test/sync', { trail: [] }, 't', () => 'f')
    expect(order).toEqual([])
  })

  it('snapshots listeners at call time', () => {
    const { root } = makeRoot()
    const order: string[] = []
    let removeLast: () => boolean = () => false
    on(root, (_p: Payload, _t: string, next: Next) => {
      order.push('first')
      on(root, (_p2: Payload, _t2: string, n: Next) => (order.push('added late'), n()))
      removeLast()
      return next()
    })
    removeLast = on(root, (_p: Payload, _t: string, next: Next) => (order.push('removed mid-flight'), next()))
    waterfall(root, null, 'test/sync', { trail: [] }, 't', () => 'f')
    expect(order).toEqual(['first', 'removed mid-flight'])
    order.length = 0
    waterfall(root, null, 'test/sync', { trail: [] }, 't', () => 'f')
    expect(order).toEqual(['first', 'added late'])
  })

  it('honours once listeners like emit does', () => {
    const { root } = makeRoot()
    let runs = 0
    root.once('test/sync', ((_p: Payload, _t: string, next: Next) => (runs++, next())) as never)
    waterfall(root, null, 'test/sync', { trail: [] }, 't', () => 'f')
    waterfall(root, null, 'test/sync', { trail: [] }, 't', () => 'f')
    expect(runs).toBe(1)
  })

  it('does not emit internal/event', () => {
    const { root } = makeRoot()
    const taps: unknown[] = []
    root.on('internal/event', (_type, name) => {
      if (name === 'test/sync') taps.push(name)
    })
    on(root, (_p: Payload, _t: string, next: Next) => next())
    waterfall(root, scopeTarget(root, undefined), 'test/sync', { trail: [] }, 't', () => 'f')
    expect(taps).toEqual([])
  })

  it('types args and fallback from the event signature', () => {
    expectTypeOf<WaterfallArgs<(a: number, b: string, next: () => boolean) => boolean>>().toEqualTypeOf<
      [a: number, b: string]
    >()
    expectTypeOf<WaterfallArgs<(this: Scoped<object>, a: number, next: () => void) => void>>().toEqualTypeOf<
      [a: number]
    >()
    expectTypeOf<WaterfallArgs<(next: () => void) => void>>().toEqualTypeOf<[]>()
    const { root } = makeRoot()
    const result = waterfall(root, null, 'test/wf', { trail: [] }, async (p) => p.trail.join())
    expectTypeOf(result).toEqualTypeOf<Promise<string>>()
    // @ts-expect-error the fallback must return the event's result type
    expect(() => waterfall(root, null, 'test/wf', { trail: [] }, () => 1)).not.toThrow()
  })
})
