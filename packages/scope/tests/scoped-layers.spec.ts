import type { Context } from 'cordis'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { bindScopeParent, createScope, NamedEntries, ScopedLayers, type ScopeKey } from '@bridle/scope'
import { makeRoot, pluginCtx } from './helpers.js'
import { takeLogLines } from '../../../tests/support/logs.js'

class DuplicateTool extends Error {}

/** A registry layer like the real ones: one named table plus a tag for assertions. */
class Layer {
  readonly tools = new NamedEntries<number>((name) => new DuplicateTool(`tool "${name}" is already registered`))
  constructor(readonly scope: ScopeKey | undefined) {}
  isEmpty(): boolean {
    return this.tools.isEmpty()
  }
}

function fixture(onChange: () => void = () => {}) {
  const created: (ScopeKey | undefined)[] = []
  const changes: string[] = []
  const layers = new ScopedLayers<Layer>(
    (scope) => {
      created.push(scope)
      return new Layer(scope)
    },
    () => {
      changes.push('notify')
      onChange()
    },
  )
  const add = (ctx: Context, name: string, value = 1, options?: { notify?: boolean }) =>
    layers.effect(ctx, (layer) => layer.tools.insert(name, value), options)
  return { layers, created, changes, add }
}

describe('ScopedLayers.effect failures', () => {
  it('a throwing action in a new scoped layer leaves no layer, no notification and nothing on the fiber', () => {
    const { root } = makeRoot()
    const { layers, created, changes } = fixture()
    const key = {}
    const scope = createScope(root, key)
    const before = scope.ctx.scope.disposables.length
    const duplicate = new DuplicateTool('tool "read" is already registered')
    let caught: unknown
    try {
      layers.effect(scope.ctx, () => {
        throw duplicate
      })
    } catch (error) {
      caught = error
    }
    expect(caught).toBe(duplicate)
    expect(created).toEqual([undefined, key])
    expect(layers.peek(key)).toBeUndefined()
    expect(changes).toEqual([])
    expect(scope.ctx.scope.disposables.length).toBe(before)
  })

  it('a throwing action only reclaims the layer it created when that layer is still empty', () => {
    const { root } = makeRoot()
    const { layers } = fixture()
    const key = {}
    const scope = createScope(root, key)
    expect(() =>
      layers.effect(scope.ctx, (layer) => {
        layer.tools.insert('left-behind', 1)
        throw new DuplicateTool('second table clashed')
      }),
    ).toThrow('second table clashed')
    expect(layers.peek(key)?.tools.has('left-behind')).toBe(true)
  })

  it('a duplicate in an existing layer keeps that layer and its entries', () => {
    const { root } = makeRoot()
    const { layers, changes, add } = fixture()
    const key = {}
    const scope = createScope(root, key)
    add(scope.ctx, 'read', 1)
    const layer = layers.peek(key)
    changes.length = 0
    expect(() => add(scope.ctx, 'read', 2)).toThrow('tool "read" is already registered')
    expect(layers.peek(key)).toBe(layer)
    expect(layer?.tools.get('read')).toBe(1)
    expect(changes).toEqual([])
  })

  it('a failing registration never takes away a layer an earlier registration holds, even one with no entries', () => {
    const { root } = makeRoot()
    const { layers, add } = fixture()
    const key = {}
    const scope = createScope(root, key)
    // a registration may hold the layer without adding an entry (an action whose undo has nothing to remove)
    layers.effect(scope.ctx, () => () => {})
    const held = layers.peek(key)
    expect(held).toBeDefined()
    expect(() =>
      layers.effect(scope.ctx, () => {
        throw new DuplicateTool('clashed')
      }),
    ).toThrow('clashed')
    expect(layers.peek(key)).toBe(held)
    add(scope.ctx, 'read', 1)
    expect(layers.peek(key)).toBe(held)
    expect(layers.merge(key, (layer) => layer.tools).get('read')).toBe(1)
  })

  it('disposing a registration whose layer was already reclaimed keeps the layer that replaced it', () => {
    const { root } = makeRoot()
    const { layers, add } = fixture()
    const key = {}
    const scope = createScope(root, key)
    const first = layers.effect(scope.ctx, () => () => {})
    const second = layers.effect(scope.ctx, () => () => {})
    // the first disposal finds the shared layer empty and reclaims it; a new registration builds a new layer
    first()
    expect(layers.peek(key)).toBeUndefined()
    add(scope.ctx, 'read', 1)
    const replacement = layers.peek(key)
    second()
    expect(layers.peek(key)).toBe(replacement)
    expect(layers.merge(key, (layer) => layer.tools).get('read')).toBe(1)
  })

  it('a duplicate in the global layer throws and leaves the global entry alone', () => {
    const { root } = makeRoot()
    const { layers, add } = fixture()
    add(root, 'read', 1)
    expect(() => add(root, 'read', 2)).toThrow(DuplicateTool)
    expect(layers.global.tools.get('read')).toBe(1)
  })

  it('a throwing createLayer stores nothing and propagates', () => {
    const { root } = makeRoot()
    const boom = new Error('cannot build layer')
    let calls = 0
    const layers = new ScopedLayers<Layer>(
      (scope) => {
        calls++
        if (scope !== undefined) throw boom
        return new Layer(scope)
      },
      () => {},
    )
    const key = {}
    const scope = createScope(root, key)
    const action = vi.fn(() => () => {})
    expect(() => layers.effect(scope.ctx, action)).toThrow(boom)
    expect(action).not.toHaveBeenCalled()
    expect(layers.peek(key)).toBeUndefined()
    expect(calls).toBe(2)
  })

  it('rolls back when onChange throws: order notify, undo, notify; nothing left (spec example 3)', () => {
    const { root } = makeRoot()
    const order: string[] = []
    let first = true
    const boom = new Error('listener failed')
    const layers = new ScopedLayers<Layer>(
      (scope) => new Layer(scope),
      () => {
        order.push('notify')
        if (first) {
          first = false
          throw boom
        }
      },
    )
    const key = {}
    const scope = createScope(root, key)
    let caught: unknown
    try {
      layers.effect(scope.ctx, (layer) => {
        const undo = layer.tools.insert('read', 1)
        return () => {
          order.push('undo')
          undo()
        }
      })
    } catch (error) {
      caught = error
    }
    expect(caught).toBe(boom)
    expect(order).toEqual(['notify', 'undo', 'notify'])
    expect(layers.peek(key)).toBeUndefined()
    expect(layers.merge(key, (l) => l.tools).size).toBe(0)
    order.length = 0
    scope.rawDispose()
    expect(order).toEqual([])
  })

  it('rolls back a global registration too', () => {
    const { root } = makeRoot()
    const boom = new Error('listener failed')
    let fail = true
    const layers = new ScopedLayers<Layer>(
      (s) => new Layer(s),
      () => {
        if (fail) {
          fail = false
          throw boom
        }
      },
    )
    expect(() => layers.effect(root, (layer) => layer.tools.insert('read', 1))).toThrow(boom)
    expect(layers.global.tools.has('read')).toBe(false)
    expect(() => layers.effect(root, (layer) => layer.tools.insert('read', 2))).not.toThrow()
    expect(layers.global.tools.get('read')).toBe(2)
  })

  it('keeps the original error when the rollback notification also throws, reporting the second', () => {
    const { root, errors } = makeRoot()
    const first = new Error('first')
    const second = new Error('second')
    const thrown = [first, second]
    const layers = new ScopedLayers<Layer>(
      (s) => new Layer(s),
      () => {
        const next = thrown.shift()
        if (next) throw next
      },
    )
    const key = {}
    const scope = createScope(root, key)
    expect(() => layers.effect(scope.ctx, (layer) => layer.tools.insert('read', 1))).toThrow(first)
    expect(errors).toContain(second)
    expect(layers.peek(key)).toBeUndefined()
    expect(takeLogLines()).toEqual(['error app: Error: second'])
  })

  it('on an inactive fiber throws INACTIVE_EFFECT: the action never runs and nothing is notified', () => {
    const { root } = makeRoot()
    const { layers, changes, created } = fixture()
    const key = {}
    const scope = createScope(root, key)
    scope.rawDispose()
    const action = vi.fn(() => () => {})
    expect(() => layers.effect(scope.ctx, action)).toThrow('cannot create effect on inactive context')
    expect(action).not.toHaveBeenCalled()
    expect(changes).toEqual([])
    expect(created).toEqual([undefined])
  })

  it('returns exactly what ctx.effect returned; a mock that never runs the callback means no notification', () => {
    const { root } = makeRoot()
    const { layers, changes } = fixture()
    const sentinel = () => {}
    const effect = vi.fn(() => sentinel)
    const mocked = Object.create(root, { effect: { value: effect } }) as Context
    const action = vi.fn(() => () => {})
    expect(layers.effect(mocked, action)).toBe(sentinel)
    expect(effect).toHaveBeenCalledTimes(1)
    expect(action).not.toHaveBeenCalled()
    expect(changes).toEqual([])
  })

  it("returns upstream's own wrapped disposer", () => {
    const { root } = makeRoot()
    const { layers } = fixture()
    const scope = createScope(root, {})
    const dispose = layers.effect(scope.ctx, (layer) => layer.tools.insert('a', 1))
    expect(scope.ctx.scope.disposables).toContain(dispose)
  })
})

describe('ScopedLayers.effect lifecycle', () => {
  it('registers into the layer of the calling context and notifies once', () => {
    const { root } = makeRoot()
    const { layers, created, changes, add } = fixture()
    const key = {}
    const scope = createScope(root, key)
    add(root, 'global-tool')
    add(scope.ctx.extend({}), 'scoped-tool')
    add(pluginCtx(scope.ctx).ctx, 'child-tool')
    expect(layers.global.tools.has('global-tool')).toBe(true)
    expect([...(layers.peek(key)?.tools.keys() ?? [])]).toEqual(['scoped-tool', 'child-tool'])
    expect(created).toEqual([undefined, key])
    expect(changes).toEqual(['notify', 'notify', 'notify'])
  })

  it('a direct disposer call undoes, reclaims the emptied layer and notifies; it is idempotent', () => {
    const { root } = makeRoot()
    const { layers, created, changes, add } = fixture()
    const key = {}
    const scope = createScope(root, key)
    const d1 = add(scope.ctx, 'a')
    const d2 = add(scope.ctx, 'b')
    changes.length = 0
    d1()
    expect(layers.peek(key)?.tools.has('a')).toBe(false)
    expect(changes).toEqual(['notify'])
    d2()
    expect(layers.peek(key)).toBeUndefined()
    expect(changes).toEqual(['notify', 'notify'])
    d2()
    expect(changes).toEqual(['notify', 'notify'])
    add(scope.ctx, 'c')
    expect(created).toEqual([undefined, key, key])
  })

  it('never deletes the global layer', () => {
    const { root } = makeRoot()
    const { layers, add } = fixture()
    const global = layers.global
    add(root, 'a')()
    expect(layers.global).toBe(global)
    expect(global.isEmpty()).toBe(true)
  })

  it('a throwing listener during a direct d() propagates, but the entry is already gone', () => {
    const { root } = makeRoot()
    let fail = false
    const boom = new Error('listener failed on undo')
    const { layers, add } = fixture(() => {
      if (fail) throw boom
    })
    const key = {}
    const scope = createScope(root, key)
    const d = add(scope.ctx, 'a')
    fail = true
    expect(() => d()).toThrow(boom)
    expect(layers.peek(key)).toBeUndefined()
    expect(() => d()).not.toThrow()
  })

  it('disposing the scope removes every registration, one notification each, before dispose() returns', async () => {
    const { root } = makeRoot()
    const { layers, changes, add } = fixture()
    const key = {}
    const scope = createScope(root, key)
    add(scope.ctx, 'a')
    add(scope.ctx, 'b')
    add(pluginCtx(scope.ctx).ctx, 'c')
    add(root, 'global')
    changes.length = 0
    const pending = scope.dispose()
    expect(layers.peek(key)).toBeUndefined()
    expect(changes).toEqual(['notify', 'notify', 'notify'])
    await pending
    expect(layers.global.tools.has('global')).toBe(true)
  })

  it('disposing the owning plugin fiber reclaims too; a throwing listener becomes internal/error', async () => {
    const { root, errors } = makeRoot()
    const boom = new Error('listener failed on teardown')
    let fail = false
    const { layers, add } = fixture(() => {
      if (fail) throw boom
    })
    const key = {}
    const host = pluginCtx(root)
    const scope = createScope(host.ctx, key)
    add(scope.ctx, 'a')
    fail = true
    expect(() => host.dispose()).not.toThrow()
    expect(layers.peek(key)).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(errors).toContain(boom)
    expect(takeLogLines()).toEqual(['error app: Error: listener failed on teardown'])
  })

  it('with notify: false it never calls onChange', () => {
    const { root } = makeRoot()
    const { layers, changes, add } = fixture()
    const key = {}
    const scope = createScope(root, key)
    const d = add(scope.ctx, 'quiet', 1, { notify: false })
    expect(layers.peek(key)?.tools.get('quiet')).toBe(1)
    d()
    expect(layers.peek(key)).toBeUndefined()
    expect(changes).toEqual([])
  })
})

describe('ScopedLayers reads', () => {
  it('build the global layer once and never create layers', () => {
    const { root } = makeRoot()
    const { layers, created } = fixture()
    const stranger = {}
    const child = {}
    bindScopeParent(child, stranger)
    expect(created).toEqual([undefined])
    expect(layers.peek(undefined)).toBeUndefined()
    expect(layers.peek(stranger)).toBeUndefined()
    expect(layers.chainLayers(child)).toEqual([])
    expect(layers.chainLayers(undefined)).toEqual([])
    expect([...layers.merge(child, (l) => l.tools)]).toEqual([])
    expect(created).toEqual([undefined])
    void root
  })

  it('chainLayers lists existing layers farthest first, exact scope last, global excluded', () => {
    const { root } = makeRoot()
    const { layers, add } = fixture()
    const team = {}
    const preset = {}
    const agent = {}
    bindScopeParent(preset, team)
    const agentScope = createScope(root, agent, { parent: preset })
    add(createScope(root, team).ctx, 't')
    add(agentScope.ctx, 'a')
    const chain = layers.chainLayers(agent)
    expect(chain.map((l) => l.scope)).toEqual([team, agent])
    add(createScope(root, preset).ctx, 'p')
    expect(chain.map((l) => l.scope)).toEqual([team, agent])
    expect(layers.chainLayers(agent).map((l) => l.scope)).toEqual([team, preset, agent])
    expect(layers.chainLayers(preset).map((l) => l.scope)).toEqual([team, preset])
  })

  it('merge keeps the global slot for a shadow and appends scope-only entries (spec example 2)', () => {
    const { root } = makeRoot()
    const { layers, add } = fixture()
    const key = {}
    const scope = createScope(root, key)
    add(root, 'p', 1)
    add(root, 'q', 1)
    add(scope.ctx, 'q', 2)
    add(scope.ctx, 'r', 3)
    expect([...layers.merge(key, (l) => l.tools)]).toEqual([
      ['p', 1],
      ['q', 2],
      ['r', 3],
    ])
    expect([...layers.merge(undefined, (l) => l.tools)]).toEqual([
      ['p', 1],
      ['q', 1],
    ])
  })

  it('merge lets the nearest layer win and returns a snapshot', () => {
    const { root } = makeRoot()
    const { layers, add } = fixture()
    const preset = {}
    const agent = {}
    const sibling = {}
    const agentScope = createScope(root, agent, { parent: preset })
    add(createScope(root, preset).ctx, 'x', 10)
    add(createScope(root, preset).ctx, 'only-preset', 11)
    add(agentScope.ctx, 'x', 20)
    add(createScope(root, sibling).ctx, 'x', 30)
    const merged = layers.merge(agent, (l) => l.tools)
    expect([...merged]).toEqual([
      ['x', 20],
      ['only-preset', 11],
    ])
    expect([...layers.merge(preset, (l) => l.tools)]).toEqual([
      ['x', 10],
      ['only-preset', 11],
    ])
    add(agentScope.ctx, 'late', 1)
    expect(merged.has('late')).toBe(false)
  })

  it('a disposed scope reads as the global view', async () => {
    const { root } = makeRoot()
    const { layers, add } = fixture()
    const key = {}
    const scope = createScope(root, key)
    add(root, 'g', 1)
    add(scope.ctx, 'g', 2)
    await scope.dispose()
    expect([...layers.merge(key, (l) => l.tools)]).toEqual([['g', 1]])
  })

  it('merge equals a per-layer model and empty layers are always reclaimed (property)', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('add' as const),
        where: fc.constantFrom(0, 1, 2, 3),
        name: fc.constantFrom('a', 'b', 'c'),
        value: fc.nat(99),
      }),
      fc.record({ kind: fc.constant('dispose' as const), index: fc.nat(40) }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const { root } = makeRoot()
        const { layers, add } = fixture()
        // where: 0 global, 1 preset, 2 agent (child of preset), 3 sibling
        const preset = {}
        const agent = {}
        const sibling = {}
        const keys = [undefined, preset, agent, sibling] as const
        bindScopeParent(agent, preset)
        const ctxs = [root, createScope(root, preset).ctx, createScope(root, agent).ctx, createScope(root, sibling).ctx]
        const model = keys.map(() => new Map<string, number>())
        const live: { dispose: () => void; where: number; name: string }[] = []
        for (const step of ops) {
          if (step.kind === 'add') {
            const table = model[step.where]!
            if (table.has(step.name)) {
              expect(() => add(ctxs[step.where]!, step.name, step.value)).toThrow(DuplicateTool)
            } else {
              live.push({ dispose: add(ctxs[step.where]!, step.name, step.value), where: step.where, name: step.name })
              table.set(step.name, step.value)
            }
          } else if (live.length > 0) {
            const [target] = live.splice(step.index % live.length, 1)
            target!.dispose()
            model[target!.where]!.delete(target!.name)
          }
          const view = (chain: number[]) => {
            const out = new Map<string, number>()
            for (const i of chain) for (const [n, v] of model[i]!) out.set(n, v)
            return [...out]
          }
          expect([...layers.merge(agent, (l) => l.tools)]).toEqual(view([0, 1, 2]))
          expect([...layers.merge(preset, (l) => l.tools)]).toEqual(view([0, 1]))
          expect([...layers.merge(sibling, (l) => l.tools)]).toEqual(view([0, 3]))
          for (let i = 1; i < keys.length; i++) {
            expect(layers.peek(keys[i]) === undefined).toBe(model[i]!.size === 0)
          }
        }
      }),
      { numRuns: 60 },
    )
  })
})
