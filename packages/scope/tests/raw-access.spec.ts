import { type Context, Service } from 'cordis'
import { describe, expect, it } from 'vitest'
import { admittedHooks, createScope, lifecycleOf, onUntraced, rawService, scopeTarget } from '@bridle/scope'
import { makeRoot, pluginCtx } from './helpers.js'

class Counter extends Service {
  count = 0
  constructor(ctx: Context) {
    super(ctx, 'counter', true)
  }
  bump(): number {
    return ++this.count
  }
}

declare module 'cordis' {
  interface Context {
    counter: Counter
  }
}

describe('rawService', () => {
  it('returns the service object ctx.get returns a proxy of, from any context of the app', () => {
    const { root } = makeRoot()
    root.plugin(Counter)
    const { ctx } = pluginCtx(root)
    const raw = rawService<Counter>(ctx, 'counter')!
    expect(raw).toBeInstanceOf(Counter)
    expect(rawService(root, 'counter')).toBe(raw)
    // Same state behind both: a call through either is seen by the other.
    expect(raw.bump()).toBe(1)
    expect((ctx.get('counter') as Counter).bump()).toBe(2)
    expect(raw.count).toBe(2)
    // The raw object is not the per-caller proxy.
    expect(ctx.get('counter')).not.toBe(raw)
  })

  it('is undefined for an unknown name, a non-service and a service that unloaded', () => {
    const { root } = makeRoot()
    const fork = root.plugin(Counter)
    expect(rawService(root, 'nothing')).toBeUndefined()
    expect(rawService(root, 'lifecycle')).toBe(root.get('lifecycle')) // not a `ctx.get` service either
    fork.dispose()
    expect(rawService(root, 'counter')).toBeUndefined()
  })

  it('follows isolation like ctx.get', () => {
    const { root } = makeRoot()
    const isolated = root.isolate('counter')
    isolated.plugin(Counter)
    expect(rawService(isolated, 'counter')).toBeInstanceOf(Counter)
    expect(rawService(root, 'counter')).toBeUndefined()
    expect(root.get('counter')).toBeUndefined()
  })
})

describe('onUntraced', () => {
  it('is admitted, ordered and filtered like an ctx.on listener, and called with the arguments themselves', () => {
    const { root } = makeRoot()
    const agent = {}
    const other = {}
    const scope = createScope(root, agent)
    const otherScope = createScope(root, other)
    const heard: string[] = []
    root.on('test/plain' as never, (() => void heard.push('traced')) as never)
    const payload = { data: 1 }
    let received: unknown
    let receivedThis: unknown
    onUntraced(scope.ctx, 'test/plain', function (this: unknown, value: unknown) {
      receivedThis = this
      received = value
      heard.push('untraced')
    } as never)
    onUntraced(otherScope.ctx, 'test/plain', (() => void heard.push('other')) as never)
    const carrier = scopeTarget(root, agent)
    lifecycleOf(root).emit(carrier, 'test/plain', payload)
    expect(heard).toEqual(['traced', 'untraced'])
    expect(received).toBe(payload)
    expect(receivedThis).toBe(carrier)
    expect(admittedHooks(root, 'test/plain', carrier)).toHaveLength(2)
  })

  it('with prepend, goes before the listeners already registered, as ctx.on does', () => {
    const { root } = makeRoot()
    const heard: string[] = []
    root.on('test/plain' as never, (() => void heard.push('first on')) as never)
    onUntraced(root, 'test/plain', (() => void heard.push('untraced, prepended')) as never, { prepend: true })
    root.on('test/plain' as never, (() => void heard.push('prepended on')) as never, { prepend: true })
    onUntraced(root, 'test/plain', (() => void heard.push('untraced')) as never)
    lifecycleOf(root).emit(null, 'test/plain', {})
    expect(heard).toEqual(['prepended on', 'untraced, prepended', 'first on', 'untraced'])
  })

  it('is removed when its plugin unloads, and by its disposer', () => {
    const { root } = makeRoot()
    const { ctx, dispose } = pluginCtx(root)
    const undo = onUntraced(root, 'test/plain', (() => {}) as never)
    onUntraced(ctx, 'test/plain', (() => {}) as never)
    const hooks = () => root.lifecycle._hooks['test/plain']?.length ?? 0
    expect(hooks()).toBe(2)
    dispose()
    expect(hooks()).toBe(1)
    undo()
    undo()
    expect(hooks()).toBe(0)
  })
})
