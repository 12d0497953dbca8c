import { Context, Service } from 'cordis'
import { describe, expect, it } from 'vitest'
import { bindScopeParent, carrierKeyOf, createScope, isScopeCarrier, scopeTarget } from '@bridle/scope'
import { makeRoot } from './helpers.js'

/** team ← bot, plus a sibling `other`; one `x/ping` listener per scope and one untagged. */
function chainFixture() {
  const { root, errors } = makeRoot()
  const team = { name: 'team' }
  const bot = { name: 'bot' }
  const other = { name: 'other' }
  const teamScope = createScope(root, team)
  const botScope = createScope(root, bot, { parent: team })
  const otherScope = createScope(root, other)
  const heard: string[] = []
  const listen = (ctx: Context, label: string, options?: { global?: boolean; prepend?: boolean }) => {
    ctx.on(
      'x/ping',
      () => {
        heard.push(label)
      },
      options,
    )
  }
  listen(root, 'untagged')
  listen(teamScope.ctx, 'team')
  listen(botScope.ctx, 'bot')
  listen(otherScope.ctx, 'other')
  const ping = (key: object | undefined) => {
    heard.length = 0
    root.emit(scopeTarget(root, key), 'x/ping')
    return [...heard]
  }
  return { root, errors, team, bot, other, teamScope, botScope, otherScope, heard, listen, ping }
}

describe('scopeTarget admission', () => {
  it('admits untagged listeners and the dispatch key chain only', () => {
    const { ping, bot, team, other } = chainFixture()
    expect(ping(bot)).toEqual(['untagged', 'team', 'bot'])
    expect(ping(team)).toEqual(['untagged', 'team'])
    expect(ping(other)).toEqual(['untagged', 'other'])
    expect(ping(undefined)).toEqual(['untagged'])
  })

  it('excludes descendants and siblings', () => {
    const { ping, team } = chainFixture()
    const heard = ping(team)
    expect(heard).not.toContain('bot')
    expect(heard).not.toContain('other')
  })

  it('lets { global: true } listeners hear every dispatch, including sibling and undefined targets', () => {
    const { ping, listen, otherScope, bot, team } = chainFixture()
    listen(otherScope.ctx, 'other-global', { global: true })
    expect(ping(bot)).toContain('other-global')
    expect(ping(team)).toContain('other-global')
    expect(ping(undefined)).toEqual(['untagged', 'other-global'])
  })

  it('reads the chain live at dispatch time', () => {
    const { root } = makeRoot()
    const parentA = {}
    const parentB = {}
    const child = {}
    const binding = bindScopeParent(child, parentA)
    const heard: string[] = []
    createScope(root, parentA).ctx.on('x/ping', () => {
      heard.push('A')
    })
    createScope(root, parentB).ctx.on('x/ping', () => {
      heard.push('B')
    })
    const carrier = scopeTarget(root, child)
    root.emit(carrier, 'x/ping')
    binding.rebind(parentB)
    root.emit(carrier, 'x/ping')
    expect(heard).toEqual(['A', 'B'])
  })

  it('stops hearing a scope once it is disposed', async () => {
    const { ping, bot, botScope } = chainFixture()
    await botScope.dispose()
    expect(ping(bot)).toEqual(['untagged', 'team'])
  })

  it("keeps base's own filter: a falsy base filter excludes even untagged listeners", () => {
    const { root } = makeRoot()
    const heard: string[] = []
    root.on('x/ping', () => {
      heard.push('untagged')
    })
    const calls: unknown[] = []
    const base = {
      [Context.filter](this: unknown, ctx: Context) {
        calls.push(this)
        return ctx !== root
      },
    }
    root.emit(scopeTarget(base, undefined), 'x/ping')
    expect(heard).toEqual([])
    expect(calls[0]).toBe(base)
  })

  it("keeps a Service's isolation check", () => {
    const { root } = makeRoot()
    class Svc extends Service {
      constructor(ctx: Context) {
        super(ctx, 'svc', true)
      }
    }
    const isolated = root.isolate('svc')
    isolated.plugin(Svc)
    const svc = isolated.get('svc') as Svc
    const heard: string[] = []
    root.on('x/ping', () => {
      heard.push('plain')
    })
    isolated.on('x/ping', () => {
      heard.push('isolated')
    })
    root.emit(scopeTarget(svc, undefined), 'x/ping')
    expect(heard).toEqual(['isolated'])
  })

  it("reads a stock Service filter's name and context once per carrier, with the same verdicts", () => {
    const { root } = makeRoot()
    class Svc extends Service {
      constructor(ctx: Context) {
        super(ctx, 'svc', true)
      }
    }
    const isolated = root.isolate('svc')
    isolated.plugin(Svc)
    const svc = isolated.get('svc') as Svc
    let reads = 0
    const counted = new Proxy(svc, {
      get(target, prop, receiver) {
        if (prop === 'name' || prop === 'ctx') reads++
        return Reflect.get(target, prop, receiver)
      },
    })
    const heard: string[] = []
    for (let i = 0; i < 5; i++) root.on('x/ping', () => void heard.push('plain'))
    for (let i = 0; i < 5; i++) isolated.on('x/ping', () => void heard.push('isolated'))
    const carrier = scopeTarget(counted, undefined)
    root.emit(carrier, 'x/ping')
    root.emit(carrier, 'x/ping')
    expect(heard).toEqual(Array(10).fill('isolated'))
    expect(reads).toBe(2)
  })

  it('calls an overridden Service filter with the base as this, on every listener', () => {
    const { root } = makeRoot()
    const seen: unknown[] = []
    class Picky extends Service {
      constructor(ctx: Context) {
        super(ctx, 'picky', true)
      }
      override [Context.filter](ctx: Context): boolean {
        seen.push(this)
        return (ctx as unknown as { admitted?: boolean }).admitted === true
      }
    }
    root.plugin(Picky)
    const picky = root.get('picky') as Picky
    const heard: string[] = []
    root.on('x/ping', () => void heard.push('plain'))
    root.extend({ admitted: true }).on('x/ping', () => void heard.push('admitted'))
    root.emit(scopeTarget(picky, undefined), 'x/ping')
    expect(heard).toEqual(['admitted'])
    expect(seen).toEqual([picky, picky])
  })
})

describe('carrier shape and dispatch', () => {
  it('is a fresh object whose only own member is the filter, not exposing base', () => {
    const base = { secret: 1 }
    const key = {}
    const carrier = scopeTarget(base, key)
    expect(Reflect.ownKeys(carrier)).toEqual([Context.filter])
    expect(carrier).not.toBe(scopeTarget(base, key))
    expect((carrier as unknown as { secret?: number }).secret).toBeUndefined()
  })

  it('isScopeCarrier / carrierKeyOf recognise only carriers', () => {
    const key = {}
    const carrier = scopeTarget({}, key)
    const blank = scopeTarget({}, undefined)
    expect(isScopeCarrier(carrier)).toBe(true)
    expect(isScopeCarrier(blank)).toBe(true)
    expect(carrierKeyOf(carrier)).toBe(key)
    expect(carrierKeyOf(blank)).toBeUndefined()
    const lookalike = { [Context.filter]: () => true }
    for (const value of [lookalike, {}, null, undefined, 1, 'x', key]) {
      expect(isScopeCarrier(value)).toBe(false)
      expect(carrierKeyOf(value)).toBeUndefined()
    }
  })

  it('runs listeners with this === carrier under emit, serial, bail and parallel', async () => {
    const { root } = makeRoot()
    const key = {}
    const scope = createScope(root, key)
    const thisValues: unknown[] = []
    scope.ctx.on('x/this', function (this: unknown) {
      thisValues.push(this)
    })
    const carrier = scopeTarget(root, key)
    root.emit(carrier, 'x/this')
    await root.serial(carrier, 'x/this')
    root.bail(carrier, 'x/this')
    await root.parallel(carrier, 'x/this')
    expect(thisValues).toEqual([carrier, carrier, carrier, carrier])
  })

  it('serial and bail return the first admitted non-null result', async () => {
    const { root } = makeRoot()
    const key = {}
    createScope(root, {}).ctx.on('x/ask', () => 'sibling')
    createScope(root, key).ctx.on('x/ask', () => 'mine')
    root.on('x/ask', () => null, { prepend: true })
    const carrier = scopeTarget(root, key)
    expect(root.bail(carrier, 'x/ask')).toBe('mine')
    expect(await root.serial(carrier, 'x/ask')).toBe('mine')
  })

  it('propagates a listener throw synchronously from emit and bail', () => {
    const { root } = makeRoot()
    const key = {}
    const boom = new Error('listener failed')
    createScope(root, key).ctx.on('x/boom', () => {
      throw boom
    })
    const carrier = scopeTarget(root, key)
    expect(() => root.emit(carrier, 'x/boom')).toThrow(boom)
    expect(() => root.bail(carrier, 'x/boom')).toThrow(boom)
    expect(() => root.emit(scopeTarget(root, undefined), 'x/boom')).not.toThrow()
  })

  it('upstream reports each dispatch (with the carrier) through internal/event', () => {
    const { root } = makeRoot()
    const seen: unknown[][] = []
    root.on('internal/event', (type, name, args, thisArg) => {
      if (name === 'x/tap') seen.push([type, name, args, thisArg])
    })
    const carrier = scopeTarget(root, {})
    root.emit(carrier, 'x/tap', 1)
    root.bail(carrier, 'x/tap', 2)
    expect(seen).toEqual([
      ['emit', 'x/tap', [1], carrier],
      ['bail', 'x/tap', [2], carrier],
    ])
  })
})
