import { type Context, Service } from 'cordis'
import { describe, expect, it } from 'vitest'
import { bindScopeParent, createScope, scopeChainOf, scopeOf, scopeParentOf } from '@bridle/scope'
import { makeRoot, pluginCtx } from './helpers.js'
import { takeLogLines } from '../../../tests/support/logs.js'

describe('createScope failures', () => {
  it('rejects a non-object key before mounting anything', () => {
    const { root } = makeRoot()
    const before = root.registry.size
    for (const bad of [null, undefined, 'agent', 42]) {
      expect(() => createScope(root, bad as never)).toThrow(new TypeError('@bridle/scope: scope key must be an object'))
    }
    expect(root.registry.size).toBe(before)
  })

  it('throws INACTIVE_EFFECT on a disposed context and binds nothing', () => {
    const { root } = makeRoot()
    const host = pluginCtx(root)
    host.dispose()
    const key = {}
    const parent = {}
    let caught: unknown
    try {
      createScope(host.ctx, key, { parent })
    } catch (error) {
      caught = error
    }
    expect(caught).toMatchObject({ code: 'INACTIVE_EFFECT', message: 'cannot create effect on inactive context' })
    expect(scopeParentOf(key)).toBeUndefined()
  })

  it('disposes the fresh fork and rethrows when the parent link is a re-bind', () => {
    const { root } = makeRoot()
    const key = {}
    bindScopeParent(key, {})
    const forks: unknown[] = []
    root.on('internal/fork', (fork) => {
      forks.push(fork)
    })
    expect(() => createScope(root, key, { parent: {} })).toThrow(/already bound to a parent/)
    expect(forks).toHaveLength(2)
    expect((forks[0] as { uid: number | null }).uid).toBeNull()
  })

  it('disposes the fresh fork and rethrows when the parent link is a cycle', () => {
    const { root } = makeRoot()
    const key = {}
    const child = {}
    bindScopeParent(child, key)
    let fork: { uid: number | null } | undefined
    root.on('internal/fork', (f) => {
      fork ??= f as never
    })
    expect(() => createScope(root, key, { parent: child })).toThrow(
      '@bridle/scope: scope parent link would form a cycle',
    )
    expect(fork?.uid).toBeNull()
    expect(scopeParentOf(key)).toBeUndefined()
  })
})

describe('createScope', () => {
  it('tags its context synchronously, before the root starts', () => {
    const { root } = makeRoot()
    const key = {}
    const scope = createScope(root, key)
    expect(scope.key).toBe(key)
    expect(scopeOf(scope.ctx)).toBe(key)
    expect(scopeOf(root)).toBeUndefined()
    expect(() => scope.ctx.effect(() => () => {})).not.toThrow()
  })

  it('never uses the reserved `scope` property for the tag', () => {
    const { root } = makeRoot()
    const scope = createScope(root, {})
    expect(scope.ctx.scope).not.toBe(scope.key)
    expect(typeof scope.ctx.scope.dispose).toBe('function')
  })

  it('mounts a fresh plugin each call, so upstream never warns about duplicates', () => {
    const { root, warnings } = makeRoot()
    createScope(root, {})
    createScope(root, {})
    createScope(root, {})
    expect(warnings).toEqual([])
  })

  it('accepts functions as keys and binds the parent when asked', () => {
    const { root } = makeRoot()
    const preset = () => {}
    const agent = {}
    const scope = createScope(root, agent, { parent: preset })
    expect(scopeParentOf(agent)).toBe(preset)
    expect(scopeChainOf(scope.key)).toEqual([agent, preset])
    const fnScope = createScope(root, preset)
    expect(scopeOf(fnScope.ctx)).toBe(preset)
  })

  it('inherits tags through extend() and child plugins; a nearer tag hides an outer one', () => {
    const { root } = makeRoot()
    const outer = {}
    const inner = {}
    const scope = createScope(root, outer)
    expect(scopeOf(scope.ctx.extend({ extra: 1 }))).toBe(outer)
    const child = pluginCtx(scope.ctx)
    expect(scopeOf(child.ctx)).toBe(outer)
    const nested = createScope(scope.ctx, inner)
    expect(scopeOf(nested.ctx)).toBe(inner)
    expect(scopeOf(pluginCtx(nested.ctx).ctx)).toBe(inner)
  })

  it('makes scopeOf(this.ctx) the caller tag inside a service method', () => {
    const { root, warnings } = makeRoot()
    class Probe extends Service {
      constructor(ctx: Context) {
        super(ctx, 'probe', true)
      }
      who() {
        return scopeOf(this.ctx)
      }
    }
    root.plugin(Probe)
    const key = {}
    const scope = createScope(root, key)
    const seen: unknown[] = []
    const consumer = () => {
      const apply = (ctx: Context) => {
        seen.push((ctx as unknown as { probe: Probe }).probe.who())
      }
      return Object.assign(apply, { inject: ['probe'] })
    }
    scope.ctx.plugin(consumer())
    root.plugin(consumer())
    expect(seen).toEqual([key, undefined])
    expect(warnings).toEqual([])
  })

  it('keeps registrations on its own fork: disposing the scope drops them, the root keeps its own', () => {
    const { root } = makeRoot()
    const scope = createScope(root, {})
    const heard: string[] = []
    root.on('x/ping', () => {
      heard.push('root')
    })
    scope.ctx.on('x/ping', () => {
      heard.push('scope')
    })
    child(scope.ctx).on('x/ping', () => {
      heard.push('child')
    })
    root.emit('x/ping')
    expect(heard).toEqual(['root', 'scope', 'child'])
    heard.length = 0
    expect(scope.rawDispose()).toBe(true)
    root.emit('x/ping')
    expect(heard).toEqual(['root'])

    function child(ctx: Context) {
      return pluginCtx(ctx).ctx
    }
  })

  it('is disposed together with the fiber it was created under', () => {
    const { root } = makeRoot()
    const host = pluginCtx(root)
    const scope = createScope(host.ctx, {})
    const disposed: string[] = []
    scope.ctx.effect(() => () => {
      disposed.push('scope effect')
    })
    host.dispose()
    expect(disposed).toEqual(['scope effect'])
    expect(() => scope.ctx.effect(() => () => {})).toThrow('cannot create effect on inactive context')
  })
})

describe('Scope disposal', () => {
  it('rawDispose is upstream fork.dispose: true once, then false', () => {
    const { root } = makeRoot()
    const scope = createScope(root, {})
    const runs: number[] = []
    scope.ctx.effect(() => () => {
      runs.push(1)
    })
    const forkEvents: unknown[] = []
    root.on('internal/fork', (fork) => {
      forkEvents.push(fork)
    })
    expect(scope.rawDispose()).toBe(true)
    expect(scope.rawDispose()).toBe(false)
    expect(runs).toEqual([1])
    // upstream re-emits internal/fork on the repeated call, and nothing else happens
    expect(forkEvents).toHaveLength(2)
    expect(forkEvents[0]).toBe(forkEvents[1])
  })

  it('dispose() is memoised and tears down synchronously, before its promise settles', async () => {
    const { root } = makeRoot()
    const scope = createScope(root, {})
    const order: string[] = []
    scope.ctx.effect(() => () => {
      order.push('first')
    })
    scope.ctx.effect(() => () => {
      order.push('second')
    })
    const p1 = scope.dispose()
    expect(order).toEqual(['first', 'second'])
    const p2 = scope.dispose()
    expect(p2).toBe(p1)
    await p1
    expect(order).toEqual(['first', 'second'])
    expect(scope.rawDispose()).toBe(false)
  })

  it('dispose() after rawDispose() does not dispose again', async () => {
    const { root } = makeRoot()
    const scope = createScope(root, {})
    const forks: unknown[] = []
    expect(scope.rawDispose()).toBe(true)
    root.on('internal/fork', (fork) => {
      forks.push(fork)
    })
    await scope.dispose()
    expect(forks).toEqual([])
  })

  it('dispose() does not wait for asynchronous disposer tails, and their errors become internal/error', async () => {
    const { root, errors } = makeRoot()
    const scope = createScope(root, {})
    const boom = new Error('boom')
    scope.ctx.effect(() => () => {
      throw boom
    })
    await expect(scope.dispose()).resolves.toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(errors).toContain(boom)
    expect(takeLogLines()).toEqual(['error app: Error: boom'])
  })

  it('keeps the parent binding after disposal', async () => {
    const { root } = makeRoot()
    const parent = {}
    const key = {}
    const scope = createScope(root, key, { parent })
    await scope.dispose()
    expect(scopeParentOf(key)).toBe(parent)
  })
})
