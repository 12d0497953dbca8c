/**
 * Black-box conformance with the package's documented contract (README.md, docs/plugins-and-scopes.md): exact error
 * wording, ordering rules and worked examples.
 * Imports only the public entry.
 */
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import {
  AnonymousEntries,
  NamedEntries,
  ScopedLayers,
  bindScopeParent,
  carrierKeyOf,
  createScope,
  isScopeCarrier,
  scopeChainOf,
  scopeOf,
  scopeParentOf,
  scopeTarget,
  waterfall,
} from '@bridle/scope'
import { takeLogLines } from '../../../tests/support/logs.js'

declare module 'cordis' {
  interface Events<C extends Context = Context> {
    'conf/ping'(): void
    'conf/wf'(bag: { trail: string[] }, next: () => string): string
  }
}

const KEY_ERROR = '@bridle/scope: scope key must be an object'
const BOUND_ERROR =
  '@bridle/scope: scope key is already bound to a parent; re-linking requires the binding returned by the original bind'
const CYCLE_ERROR = '@bridle/scope: scope parent link would form a cycle'

function root(): { ctx: Context; errors: unknown[] } {
  const ctx = new Context()
  const errors: unknown[] = []
  ctx.on('internal/error', (error: unknown) => void errors.push(error))
  ctx.on('internal/warning', () => {})
  return { ctx, errors }
}

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

interface Layer {
  names: NamedEntries<number>
  isEmpty(): boolean
}

function layers(onChange: () => void = () => {}) {
  const created: unknown[] = []
  const store = new ScopedLayers<Layer>((scope) => {
    created.push(scope)
    const names = new NamedEntries<number>((name) => new Error(`duplicate ${name}`))
    return { names, isEmpty: () => names.isEmpty() }
  }, onChange)
  return { store, created }
}

describe('createScope', () => {
  it('rejects non-object keys with the exact TypeError; functions are valid keys', () => {
    const { ctx } = root()
    for (const bad of [null, undefined, 'agent', 1, Symbol('s'), true]) {
      const error = thrown(() => createScope(ctx, bad as never))
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toBe(KEY_ERROR)
    }
    const fnKey = () => {}
    expect(scopeOf(createScope(ctx, fnKey).ctx)).toBe(fnKey)
  })

  it('is usable synchronously before start; scope.ctx is tagged; the tag is not the `scope` property', () => {
    const { ctx } = root()
    const key = {}
    const scope = createScope(ctx, key)
    expect(scope.key).toBe(key)
    expect(scopeOf(scope.ctx)).toBe(key)
    expect(scopeOf(ctx)).toBeUndefined()
    expect(scope.ctx.scope).not.toBe(key)
    let heard = 0
    scope.ctx.on('conf/ping', () => void heard++)
    ctx.emit('conf/ping')
    expect(heard).toBe(1)
  })

  it('mounting twice warns no duplicate plugin', () => {
    const ctx = new Context()
    const warnings: unknown[] = []
    ctx.on('internal/warning', (w: unknown) => void warnings.push(w))
    createScope(ctx, {})
    createScope(ctx, {})
    expect(warnings).toEqual([])
  })

  it('on a disposed context throws INACTIVE_EFFECT and binds nothing', () => {
    const { ctx } = root()
    let inner: Context | undefined
    const fork = ctx.plugin((c: Context) => void (inner = c))
    fork.dispose()
    const key = {}
    const parent = {}
    const error = thrown(() => createScope(inner!, key, { parent }))
    expect((error as { code?: string }).code).toBe('INACTIVE_EFFECT')
    expect(scopeParentOf(key)).toBeUndefined()
  })

  it('a failing parent binding disposes the fresh fork and rethrows; the handle is not returned', () => {
    const { ctx } = root()
    const key = {}
    bindScopeParent(key, {})
    let disposedForks = 0
    ctx.on('internal/fork', (fork) => {
      if (fork && fork.uid === null) disposedForks++
    })
    const error = thrown(() => createScope(ctx, key, { parent: {} }))
    expect((error as Error).message).toBe(BOUND_ERROR)
    expect(disposedForks).toBe(1)
    const self = {}
    expect((thrown(() => createScope(ctx, self, { parent: self })) as Error).message).toBe(CYCLE_ERROR)
    expect(createScope(ctx, {}, { parent: {} })).not.toHaveProperty('rebind')
  })

  it('rawDispose is true once, then false; dispose() is memoised and resolves after rawDispose', async () => {
    const { ctx } = root()
    const a = createScope(ctx, {})
    expect(a.rawDispose()).toBe(true)
    expect(a.rawDispose()).toBe(false)
    await expect(a.dispose()).resolves.toBeUndefined()
    const b = createScope(ctx, {})
    let removed = 0
    b.ctx.on('conf/ping', () => {})
    b.ctx.effect(() => () => void removed++)
    const first = b.dispose()
    // Synchronous teardown: registrations are gone when the call returns.
    expect(removed).toBe(1)
    expect(b.dispose()).toBe(first)
    await first
    expect(removed).toBe(1)
  })

  it('disposing the parent fiber disposes the scope; the parent binding survives disposal', () => {
    const { ctx } = root()
    let inner: Context | undefined
    const fork = ctx.plugin((c: Context) => void (inner = c))
    const parent = {}
    const key = {}
    const scope = createScope(inner!, key, { parent })
    let heard = 0
    scope.ctx.on('conf/ping', () => void heard++)
    fork.dispose()
    ctx.emit('conf/ping')
    expect(heard).toBe(0)
    expect(scopeParentOf(key)).toBe(parent)
  })
})

describe('scopeOf', () => {
  it('is inherited through extend() and child plugins; a nearer tag hides an outer one', () => {
    const { ctx } = root()
    const outer = {}
    const inner = {}
    const o = createScope(ctx, outer)
    expect(scopeOf(o.ctx.extend({}))).toBe(outer)
    let child: Context | undefined
    o.ctx.plugin((c: Context) => void (child = c))
    expect(scopeOf(child!)).toBe(outer)
    expect(scopeOf(createScope(o.ctx, inner).ctx)).toBe(inner)
  })
})

describe('parent chain', () => {
  it('validates both arguments, refuses re-binding and cycles with the exact messages', () => {
    const a = {}
    for (const [k, p] of [
      ['x', {}],
      [{}, 'x'],
      [{}, null],
    ] as const) {
      const error = thrown(() => bindScopeParent(k as never, p as never))
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toBe(KEY_ERROR)
    }
    const self = thrown(() => bindScopeParent(a, a))
    expect(self).toBeInstanceOf(Error)
    expect((self as Error).message).toBe(CYCLE_ERROR)
    expect(scopeParentOf(a)).toBeUndefined()
    const b = {}
    const c = {}
    const binding = bindScopeParent(b, a)
    bindScopeParent(c, b)
    expect((thrown(() => bindScopeParent(b, {})) as Error).message).toBe(BOUND_ERROR)
    expect((thrown(() => bindScopeParent(a, c)) as Error).message).toBe(CYCLE_ERROR)
    expect(scopeParentOf(a)).toBeUndefined()
    expect((thrown(() => binding.rebind(c)) as Error).message).toBe(CYCLE_ERROR)
    expect(scopeParentOf(b)).toBe(a)
    const d = {}
    binding.rebind(d)
    expect(scopeChainOf(c)).toEqual([c, b, d])
    expect(scopeChainOf(undefined)).toEqual([])
  })
})

describe('NamedEntries', () => {
  it('throws exactly the factory object; undo is idempotent and never removes a later insertion', () => {
    const sentinel = new Error('dup')
    const names: string[] = []
    const table = new NamedEntries<number>((name) => {
      names.push(name)
      return sentinel
    })
    const undo = table.insert('a', 1)
    expect(thrown(() => table.insert('a', 2))).toBe(sentinel)
    expect(names).toEqual(['a'])
    undo()
    undo()
    expect(table.has('a')).toBe(false)
    table.insert('a', 3)
    undo()
    expect(table.get('a')).toBe(3)
  })

  it('iterators are live; example 4: a drained table starts a new generation', () => {
    const table = new NamedEntries<string>(() => new Error('dup'))
    table.insert('x', 'x')
    const live = table.keys()
    expect(live.next().value).toBe('x')
    table.insert('y', 'y')
    expect(live.next().value).toBe('y')

    const gen = new NamedEntries<string>(() => new Error('dup'))
    const undo = gen.insert('only', 'only')
    const old = gen.values()
    expect(old.next().value).toBe('only')
    undo()
    gen.insert('again', 'again')
    expect(old.next().done).toBe(true)
    expect([...gen.values()]).toEqual(['again'])
    expect(gen.isEmpty()).toBe(false)
  })
})

describe('AnonymousEntries', () => {
  it('the same value twice is two registrations; each undo removes only its own', () => {
    const table = new AnonymousEntries<object>()
    const value = {}
    const u1 = table.append(value)
    const u2 = table.append(value)
    expect([...table.values()]).toEqual([value, value])
    u1()
    u1()
    expect([...table.values()]).toEqual([value])
    u2()
    expect(table.isEmpty()).toBe(true)
  })
})

describe('ScopedLayers reads', () => {
  it('createLayer(undefined) once at construction; reads never create layers', () => {
    const { store, created } = layers()
    expect(created).toEqual([undefined])
    const key = {}
    expect(store.peek(key)).toBeUndefined()
    expect(store.peek(undefined)).toBeUndefined()
    expect(store.chainLayers(key)).toEqual([])
    expect([...store.merge(key, (l) => l.names)]).toEqual([])
    expect(created).toEqual([undefined])
  })

  it('example 2: merge keeps the global slot; chainLayers is farthest first', () => {
    const { ctx } = root()
    const { store } = layers()
    const team = {}
    const bot = {}
    bindScopeParent(bot, team)
    const teamScope = createScope(ctx, team)
    const botScope = createScope(ctx, bot)
    store.effect(ctx, (l) => l.names.insert('p', 1))
    store.effect(ctx, (l) => l.names.insert('q', 1))
    store.effect(teamScope.ctx, (l) => l.names.insert('q', 2))
    store.effect(teamScope.ctx, (l) => l.names.insert('r', 3))
    expect([...store.merge(team, (l) => l.names)]).toEqual([
      ['p', 1],
      ['q', 2],
      ['r', 3],
    ])
    expect([...store.merge(undefined, (l) => l.names)]).toEqual([
      ['p', 1],
      ['q', 1],
    ])
    store.effect(botScope.ctx, (l) => l.names.insert('s', 4))
    expect(store.chainLayers(bot)).toEqual([store.peek(team), store.peek(bot)])
    const snapshot = store.merge(bot, (l) => l.names)
    store.effect(botScope.ctx, (l) => l.names.insert('t', 5))
    expect([...snapshot.keys()]).toEqual(['p', 'q', 'r', 's'])
  })
})

describe('ScopedLayers.effect', () => {
  it('reads the tag from the ctx passed in; a throwing action leaves no new layer; one notify per registration', () => {
    const { ctx } = root()
    let notified = 0
    const { store } = layers(() => void notified++)
    const key = {}
    const scope = createScope(ctx, key)
    const tagged = scope.ctx.extend({})
    expect(
      thrown(() =>
        store.effect(tagged, () => {
          throw new Error('action failed')
        }),
      ),
    ).toMatchObject({ message: 'action failed' })
    expect(store.peek(key)).toBeUndefined()
    expect(notified).toBe(0)
    store.effect(tagged, (l) => l.names.insert('a', 1))
    store.effect(tagged, (l) => l.names.insert('b', 1))
    store.effect(tagged, (l) => l.names.insert('c', 1))
    expect(store.peek(key)?.names.has('a')).toBe(true)
    expect(store.global.names.has('a')).toBe(false)
    expect(notified).toBe(3)
    scope.rawDispose()
    expect(notified).toBe(6)
    expect(store.peek(key)).toBeUndefined()
  })

  it('a direct disposer call undoes, reclaims, notifies, and is idempotent', () => {
    const { ctx } = root()
    let notified = 0
    const { store } = layers(() => void notified++)
    const key = {}
    const scope = createScope(ctx, key)
    const d = store.effect(scope.ctx, (l) => l.names.insert('a', 1))
    expect(notified).toBe(1)
    d()
    d()
    expect(notified).toBe(2)
    expect(store.peek(key)).toBeUndefined()
  })

  it('example 3: a throwing notify rolls back in the order notify, undo, notify and rethrows the first error', () => {
    const { ctx } = root()
    const order: string[] = []
    let calls = 0
    const first = new Error('first notify')
    const { store } = layers(() => {
      order.push('notify')
      if (calls++ === 0) throw first
    })
    const key = {}
    const scope = createScope(ctx, key)
    const error = thrown(() =>
      store.effect(scope.ctx, (l) => {
        const undo = l.names.insert('a', 1)
        return () => {
          order.push('undo')
          undo()
        }
      }),
    )
    expect(error).toBe(first)
    expect(order).toEqual(['notify', 'undo', 'notify'])
    expect(store.peek(key)).toBeUndefined()
  })

  it('a throwing rollback notify still rethrows the original; the secondary goes to internal/error', () => {
    const { ctx, errors } = root()
    const original = new Error('original')
    const secondary = new Error('secondary')
    let calls = 0
    const { store } = layers(() => {
      throw calls++ === 0 ? original : secondary
    })
    expect(thrown(() => store.effect(ctx, (l) => l.names.insert('a', 1)))).toBe(original)
    expect(errors).toContain(secondary)
    expect(store.global.names.has('a')).toBe(false)
    expect(takeLogLines()).toEqual(['error app: Error: secondary'])
  })

  it('notify: false never calls onChange; a mocked ctx.effect return value is returned unchanged', () => {
    const { ctx } = root()
    let notified = 0
    const { store } = layers(() => void notified++)
    const d = store.effect(ctx, (l) => l.names.insert('a', 1), { notify: false })
    d()
    expect(notified).toBe(0)
    const sentinel = () => {}
    const mocked = Object.create(ctx) as Context
    ;(mocked as unknown as { effect: () => unknown }).effect = () => sentinel
    expect(store.effect(mocked, () => () => {})).toBe(sentinel)
    expect(notified).toBe(0)
  })

  it('teardown: a throwing onChange propagates out of a direct d() (entry already gone) but becomes internal/error on fiber disposal', async () => {
    const { ctx, errors } = root()
    let armed = false
    const failure = new Error('listener failed')
    const { store } = layers(() => {
      if (armed) throw failure
    })
    const key = {}
    const scope = createScope(ctx, key)
    const d = store.effect(scope.ctx, (l) => l.names.insert('a', 1))
    armed = true
    expect(thrown(() => d())).toBe(failure)
    expect(store.peek(key)).toBeUndefined()
    expect(d()).toBeUndefined()
    armed = false
    store.effect(scope.ctx, (l) => l.names.insert('b', 1))
    armed = true
    expect(() => scope.rawDispose()).not.toThrow()
    // The synchronous part already ran (layer reclaimed); upstream reports the throw from its async wrapper.
    expect(store.peek(key)).toBeUndefined()
    await new Promise((resolve) => setImmediate(resolve))
    expect(errors).toContain(failure)
    expect(store.peek(key)).toBeUndefined()
    expect(takeLogLines()).toEqual(['error app: Error: listener failed'])
  })

  it('a disposed fiber throws INACTIVE_EFFECT and nothing runs', () => {
    const { ctx } = root()
    let notified = 0
    const { store, created } = layers(() => void notified++)
    const scope = createScope(ctx, {})
    scope.rawDispose()
    let ran = false
    const error = thrown(() => store.effect(scope.ctx, () => ((ran = true), () => {})))
    expect((error as { code?: string }).code).toBe('INACTIVE_EFFECT')
    expect(ran).toBe(false)
    expect(notified).toBe(0)
    expect(created).toEqual([undefined])
  })
})

describe('carriers', () => {
  it('example 1: admission along a chain; global listeners hear every dispatch', () => {
    const { ctx } = root()
    const team = {}
    const bot = {}
    const other = {}
    bindScopeParent(bot, team)
    const heard: string[] = []
    ctx.on('conf/ping', () => void heard.push('untagged'))
    createScope(ctx, team).ctx.on('conf/ping', () => void heard.push('team'))
    createScope(ctx, bot).ctx.on('conf/ping', () => void heard.push('bot'))
    const otherCtx = createScope(ctx, other).ctx
    otherCtx.on('conf/ping', () => void heard.push('other'))
    otherCtx.on('conf/ping', () => void heard.push('global'), { global: true })
    const hear = (key: object | undefined) => {
      heard.length = 0
      ctx.emit(scopeTarget(ctx, key) as object, 'conf/ping')
      return [...heard].sort()
    }
    expect(hear(bot)).toEqual(['bot', 'global', 'team', 'untagged'])
    expect(hear(team)).toEqual(['global', 'team', 'untagged'])
    expect(hear(undefined)).toEqual(['global', 'untagged'])
  })

  it('a carrier exposes only Context.filter; isScopeCarrier and carrierKeyOf; listeners run with this === carrier', () => {
    const { ctx } = root()
    const key = {}
    const base = { secret: 1 }
    const carrier = scopeTarget(base, key) as object
    expect(Reflect.ownKeys(carrier)).toEqual([Symbol.for('cordis.filter')])
    expect((carrier as { secret?: number }).secret).toBeUndefined()
    expect(isScopeCarrier(carrier)).toBe(true)
    expect(isScopeCarrier({ [Symbol.for('cordis.filter')]: () => true })).toBe(false)
    expect(carrierKeyOf(carrier)).toBe(key)
    expect(carrierKeyOf(scopeTarget(base, undefined))).toBeUndefined()
    expect(carrierKeyOf({})).toBeUndefined()
    let self: unknown
    ctx.on('conf/ping', function (this: unknown) {
      self = this
    })
    ctx.emit(carrier, 'conf/ping')
    expect(self).toBe(carrier)
  })

  it("base's own filter is applied first", () => {
    const { ctx } = root()
    let heard = 0
    ctx.on('conf/ping', () => void heard++)
    const base = { [Symbol.for('cordis.filter')]: () => false }
    ctx.emit(scopeTarget(base, undefined) as object, 'conf/ping')
    expect(heard).toBe(0)
  })
})

describe('waterfall', () => {
  it('needs a fallback function as its last argument (exact TypeError)', () => {
    const { ctx } = root()
    const error = thrown(() => (waterfall as (...a: unknown[]) => unknown)(ctx, null, 'conf/wf', { trail: [] }))
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toBe(
      '@bridle/scope: waterfall "conf/wf" needs a fallback function as its last argument',
    )
  })

  it('prepend order, shared args, memoised next, no internal/event, this === thisArg', () => {
    const { ctx } = root()
    let taps = 0
    ctx.on('internal/event', () => void taps++)
    const selves: unknown[] = []
    let innerRuns = 0
    ctx.on('conf/wf', function (this: unknown, bag, next) {
      selves.push(this)
      bag.trail.push('a')
      return `a(${next()})`
    })
    ctx.on('conf/wf', (bag, next) => {
      innerRuns++
      bag.trail.push('b')
      return `b(${next()})`
    })
    ctx.on(
      'conf/wf',
      (bag, next) => {
        bag.trail.push('p')
        const first = next()
        expect(next()).toBe(first)
        return `p(${first})`
      },
      true,
    )
    const bag = { trail: [] as string[] }
    const thisArg = { marker: true }
    let fallbackArg: unknown
    taps = 0 // registering listeners dispatches internal/* events; count only the waterfall call
    const result = waterfall(ctx, thisArg, 'conf/wf', bag, (b) => {
      fallbackArg = b
      return 'end'
    })
    expect(result).toBe('p(a(b(end)))')
    expect(bag.trail).toEqual(['p', 'a', 'b'])
    expect(innerRuns).toBe(1)
    expect(fallbackArg).toBe(bag)
    expect(selves).toEqual([thisArg])
    expect(taps).toBe(0)
  })

  it('a listener that never calls next short-circuits; no listener returns the fallback result', () => {
    const { ctx } = root()
    let fallbackRan = false
    expect(waterfall(ctx, undefined, 'conf/wf', { trail: [] }, () => 'fb')).toBe('fb')
    ctx.on('conf/wf', () => 'short')
    ctx.on('conf/wf', () => {
      throw new Error('never')
    })
    expect(
      waterfall(ctx, null, 'conf/wf', { trail: [] }, () => {
        fallbackRan = true
        return 'fb'
      }),
    ).toBe('short')
    expect(fallbackRan).toBe(false)
  })

  it('a carrier thisArg filters listeners; a synchronous throw propagates and replays through next', () => {
    const { ctx } = root()
    const a = {}
    const b = {}
    createScope(ctx, a).ctx.on('conf/wf', (_bag, next) => `a(${next()})`)
    createScope(ctx, b).ctx.on('conf/wf', (_bag, next) => `b(${next()})`)
    expect(waterfall(ctx, scopeTarget(ctx, a) as object, 'conf/wf', { trail: [] }, () => 'end')).toBe('a(end)')
    const { ctx: other } = root()
    const boom = new Error('boom')
    const seen: unknown[] = []
    other.on('conf/wf', (_bag, next) => {
      for (let i = 0; i < 2; i++) {
        try {
          next()
        } catch (error) {
          seen.push(error)
        }
      }
      throw seen[0]
    })
    let fallbackRuns = 0
    expect(
      thrown(() =>
        waterfall(other, null, 'conf/wf', { trail: [] }, () => {
          fallbackRuns++
          throw boom
        }),
      ),
    ).toBe(boom)
    expect(seen).toEqual([boom, boom])
    expect(fallbackRuns).toBe(1)
  })
})
