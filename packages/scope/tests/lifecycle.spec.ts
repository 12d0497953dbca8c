import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { admittedHooks, createScope, lifecycleOf, scopeTarget } from '@bridle/scope'
import { makeRoot, pluginCtx } from './helpers.js'

describe('lifecycleOf / admittedHooks', () => {
  it('returns the one raw lifecycle behind every context of an app, and none of another app', () => {
    const { root } = makeRoot()
    const { ctx } = pluginCtx(root)
    const raw = lifecycleOf(root)
    expect(lifecycleOf(ctx)).toBe(raw)
    expect(lifecycleOf(root)).toBe(raw)
    expect(raw._hooks).toBe(root.lifecycle._hooks)
    expect(lifecycleOf(new Context())).not.toBe(raw)
  })

  it('emits through the raw lifecycle exactly as ctx.emit does', () => {
    const { root } = makeRoot()
    const seen: unknown[][] = []
    root.on('test/sync' as never, ((...args: unknown[]) => void seen.push(args)) as never)
    const events: unknown[] = []
    root.on('internal/event', ((type: string, name: string) => void events.push([type, name])) as never)
    ;(lifecycleOf(root) as unknown as { emit(...args: unknown[]): void }).emit('test/sync', 1, 2)
    ;(root as unknown as { emit(...args: unknown[]): void }).emit('test/sync', 3, 4)
    expect(seen).toEqual([
      [1, 2],
      [3, 4],
    ])
    expect(events).toEqual([
      ['emit', 'test/sync'],
      ['emit', 'test/sync'],
    ])
  })

  it('admits the same listeners as ctx.lifecycle.filterHooks for a carrier, for null and for a context', () => {
    const { root } = makeRoot()
    const agent = {}
    const other = {}
    const scope = createScope(root, agent)
    const otherScope = createScope(root, other)
    const untagged = () => {}
    root.on('test/sync' as never, untagged as never)
    scope.ctx.on('test/sync' as never, (() => {}) as never)
    otherScope.ctx.on('test/sync' as never, (() => {}) as never)
    const hooks = root.lifecycle._hooks['test/sync']!
    for (const thisArg of [scopeTarget(root, agent), scopeTarget(root, undefined), root, null]) {
      const expected = root.lifecycle.filterHooks(hooks, thisArg ?? undefined)
      expect(admittedHooks(root, 'test/sync', thisArg)).toEqual(expected)
    }
    expect(admittedHooks(root, 'test/sync', scopeTarget(root, agent))).toHaveLength(2)
    expect(admittedHooks(root, 'test/none', null)).toEqual([])
  })
})
