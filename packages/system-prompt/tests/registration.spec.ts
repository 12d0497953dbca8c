import { describe, expect, it, vi } from 'vitest'
import { Context } from 'cordis'
import { SystemPrompt } from '../src/index.js'
import { plugin, scope, setup, tool } from './helpers.js'

const names = (list: { name: string }[]) => list.map((entry) => entry.name)

describe('registration: validation (failure paths first)', () => {
  it.each(['section', 'context'] as const)('%s: name, order, text checks in order', (kind) => {
    const { sp, changes } = setup()
    const before = changes()
    const call = (value: unknown) => () => (sp[kind] as (v: unknown) => unknown)(value)
    expect(call({ name: '', order: 1, text: 'x' })).toThrow(
      new TypeError(`prompt ${kind} name must be a non-empty string`),
    )
    expect(call({ name: 3, order: 1, text: 'x' })).toThrow(`prompt ${kind} name must be a non-empty string`)
    expect(call(null)).toThrow(`prompt ${kind} name must be a non-empty string`)
    for (const order of [Number.NaN, Infinity, -Infinity, '1', undefined]) {
      expect(call({ name: 'n', order, text: 1 })).toThrow(
        new TypeError(`prompt ${kind} "n" order must be a finite number`),
      )
    }
    expect(call({ name: 'n', order: 1, text: 1 })).toThrow(
      new TypeError(`prompt ${kind} "n" text must be a string or a function`),
    )
    expect(call({ name: 'n', order: 1 })).toThrow(TypeError)
    expect(changes()).toBe(before)
  })

  it('variable: name grammar (string check first), then provider', () => {
    const { sp, changes } = setup()
    const bad = (name: unknown) => () => sp.variable(name as string, () => 'x')
    for (const name of ['', 'Cwd', '1a', 'a-b', '_a', 'a b', undefined, 7]) {
      expect(bad(name)).toThrow(`invalid prompt variable name "${String(name)}" (must match /^[a-z][a-z0-9_]*$/)`)
    }
    expect(() => sp.variable('ok', 'x' as never)).toThrow(
      new TypeError('prompt variable "ok" provider must be a function'),
    )
    expect(changes()).toBe(2)
  })

  it('tools: provider must be a function', () => {
    const { sp, changes } = setup()
    expect(() => sp.tools({ schemas: [] } as never)).toThrow(new TypeError('prompt tool provider must be a function'))
    expect(changes()).toBe(2)
  })

  it('duplicates: global messages point at agent.ctx, scoped ones do not', () => {
    const { root, sp, changes } = setup()
    sp.section({ name: 'a', order: 1, text: 'A' })
    sp.context({ name: 'c', order: 1, text: 'C' })
    sp.variable('v', () => 'v')
    const count = changes()
    expect(() => sp.section({ name: 'a', order: 2, text: 'B' })).toThrow(
      'prompt section "a" is already registered (for a per-agent override, register through that agent\'s `agent.ctx` instead)',
    )
    expect(() => sp.context({ name: 'c', order: 2, text: 'B' })).toThrow(
      'prompt context "c" is already registered (for a per-agent override, register through that agent\'s `agent.ctx` instead)',
    )
    expect(() => sp.variable('v', () => 'w')).toThrow(
      'prompt variable "v" is already registered (for a per-agent value, register through that agent\'s `agent.ctx` instead)',
    )
    const s = scope(root)
    s.ctx.systemPrompt.section({ name: 'a', order: 1, text: 'scoped' })
    s.ctx.systemPrompt.context({ name: 'c', order: 1, text: 'scoped' })
    s.ctx.systemPrompt.variable('v', () => 'scoped')
    expect(() => s.ctx.systemPrompt.section({ name: 'a', order: 1, text: 'again' })).toThrow(
      new Error('prompt section "a" is already registered in this scope'),
    )
    expect(() => s.ctx.systemPrompt.context({ name: 'c', order: 1, text: 'again' })).toThrow(
      new Error('prompt context "c" is already registered in this scope'),
    )
    expect(() => s.ctx.systemPrompt.variable('v', () => '')).toThrow(
      new Error('prompt variable "v" is already registered in this scope'),
    )
    expect(changes()).toBe(count + 3)
  })

  it('built-in names are global: re-registering them globally throws, in a scope it is a legal shadow', async () => {
    const { root, sp } = setup({ persona: 'global persona' })
    expect(() => sp.section({ name: 'harness:identity', order: 0, text: 'x' })).toThrow('is already registered (for a')
    expect(() => sp.section({ name: 'deployment:persona', order: 0, text: 'x' })).toThrow(
      'is already registered (for a',
    )
    const s = scope(root)
    const child = {}
    const c = scope(root, { parent: s.key })
    void child
    s.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'scoped persona' })
    const text = async (key?: object) =>
      (await sp.assemble({ scope: key })).sections.find((x) => x.name === 'deployment:persona')?.text
    expect(await text(s.key)).toBe('scoped persona')
    expect(await text(c.key)).toBe('scoped persona')
    expect(await text()).toBe('global persona')
    expect(await text(scope(root).key)).toBe('global persona')
  })

  it('a failed registration in a fresh scope leaves no layer behind', () => {
    const { root, sp } = setup()
    const s = scope(root)
    s.ctx.systemPrompt.section({ name: 'a', order: 1, text: 'A' })
    const other = scope(root)
    expect(() => other.ctx.systemPrompt.section({ name: 'x', order: Number.NaN, text: '' })).toThrow()
    const layers = (sp as unknown as { layers: { peek(k: object): unknown } }).layers
    expect(layers.peek(other.key)).toBeUndefined()
    expect(layers.peek(s.key)).toBeDefined()
  })
})

describe('registration: effects and disposers', () => {
  it('each method returns a synchronous, idempotent, non-thenable disposer; one change per registration and disposal', async () => {
    const { sp, changes } = setup()
    const disposers = [
      sp.section({ name: 's', order: 1, text: 'S' }),
      sp.context({ name: 'c', order: 1, text: 'C' }),
      sp.variable('v', () => 'V'),
      sp.tools(() => ({ schemas: [tool('t')] })),
      sp.suppressRuntimeContext(),
    ]
    expect(changes()).toBe(2 + 5)
    for (const dispose of disposers) {
      expect(typeof dispose).toBe('function')
      expect((dispose as unknown as { then?: unknown }).then).toBeUndefined()
    }
    const full = await sp.assemble()
    expect(names(full.sections)).toContain('s')
    expect(full.contexts).toEqual([])
    expect(names(full.tools)).toEqual(['t'])
    expect(full.variables).toEqual({ v: 'V' })
    for (const dispose of disposers) {
      dispose()
      dispose()
    }
    expect(changes()).toBe(2 + 5 + 5)
    const empty = await sp.assemble()
    expect(names(empty.sections)).toEqual(['harness:identity', 'deployment:persona'])
    expect(empty.tools).toEqual([])
    expect(empty.variables).toEqual({})
  })

  it('disposing the owning plugin removes its contributions (hot reload) with one event each', async () => {
    const { root, sp, changes } = setup()
    const p = plugin(root)
    const context = vi.fn(() => 'C')
    p.ctx.systemPrompt.section({ name: 'plug', order: 5, text: 'P' })
    p.ctx.systemPrompt.context({ name: 'env', order: 1, text: context })
    p.ctx.systemPrompt.tools(() => ({ schemas: [tool('t')] }))
    p.ctx.systemPrompt.variable('x', () => 'x')
    const before = changes()
    p.dispose()
    expect(changes()).toBe(before + 4)
    const next = await sp.assemble()
    expect(names(next.sections)).toEqual(['harness:identity', 'deployment:persona'])
    expect(next.contexts).toEqual([])
    expect(next.tools).toEqual([])
    expect(next.variables).toEqual({})
    expect(context).not.toHaveBeenCalled()
  })

  it('registering through a disposed fiber throws INACTIVE_EFFECT and emits nothing', () => {
    const { root, changes } = setup()
    const p = plugin(root)
    const sp = p.ctx.systemPrompt
    p.dispose()
    const before = changes()
    for (const register of [
      () => sp.section({ name: 'a', order: 1, text: '' }),
      () => sp.context({ name: 'a', order: 1, text: '' }),
      () => sp.variable('a', () => ''),
      () => sp.tools(() => ({ schemas: [] })),
      () => sp.suppressRuntimeContext(),
    ]) {
      expect(register).toThrow(expect.objectContaining({ code: 'INACTIVE_EFFECT' }))
    }
    expect(changes()).toBe(before)
  })

  it('Scope.dispose() emits one change per registration and removes the layer', async () => {
    const { root, sp, changes } = setup()
    const s = scope(root)
    s.ctx.systemPrompt.section({ name: 'a', order: 1, text: 'A' })
    s.ctx.systemPrompt.suppressRuntimeContext()
    s.ctx.systemPrompt.suppressRuntimeContext()
    const before = changes()
    await s.dispose()
    expect(changes()).toBe(before + 3)
    const layers = (sp as unknown as { layers: { peek(k: object): unknown } }).layers
    expect(layers.peek(s.key)).toBeUndefined()
    expect(names((await sp.assemble({ scope: s.key })).sections)).toEqual(['harness:identity', 'deployment:persona'])
  })

  it('stores shallow copies: later mutation of the caller object has no effect', async () => {
    const { sp } = setup()
    const def = { name: 'm', order: 1, text: 'before', complete: false }
    sp.section(def)
    def.text = 'after'
    def.order = -1000
    def.complete = true
    const a = await sp.assemble()
    expect(a.sections.at(-1)).toEqual({ name: 'm', text: 'before' })
  })

  it('only complete === true counts as complete', async () => {
    const { sp } = setup()
    sp.section({ name: 'a', order: 1, text: 'A', complete: 'yes' as never })
    sp.section({ name: 'b', order: 2, text: 'B', complete: 1 as never })
    expect((await sp.assemble()).sections).toHaveLength(4)
  })

  it('contexts ignore complete', async () => {
    const { sp } = setup()
    sp.context({ name: 'a', order: 1, text: 'A', complete: true } as never)
    expect((await sp.assemble()).sections).toHaveLength(2)
  })
})

describe('system-prompt/change', () => {
  it('the constructor emits one per built-in, before ctx.systemPrompt is set', () => {
    for (const [config, expected] of [
      [undefined, 2],
      [{ includeRuntimeContext: false }, 3],
      [{ includeHarnessIdentity: false }, 1],
      [{ includeHarnessIdentity: false, includeRuntimeContext: false }, 2],
    ] as const) {
      const root = new Context()
      const seen: unknown[] = []
      root.on('system-prompt/change', () => void seen.push(root.get('systemPrompt')))
      root.plugin(SystemPrompt, config)
      expect(seen).toEqual(Array(expected).fill(undefined))
      expect(root.get('systemPrompt')).toBeDefined()
    }
  })

  it('is unfiltered: scoped listeners hear global changes and vice versa', () => {
    const { root, sp } = setup()
    const s = scope(root)
    const scoped = vi.fn()
    const global = vi.fn()
    s.ctx.on('system-prompt/change', scoped)
    root.on('system-prompt/change', global)
    sp.section({ name: 'g', order: 1, text: '' })
    s.ctx.systemPrompt.section({ name: 'l', order: 1, text: '' })
    expect(scoped).toHaveBeenCalledTimes(2)
    expect(global).toHaveBeenCalledTimes(2)
    expect(scoped.mock.calls[0]).toEqual([])
  })

  it('fires for invisible changes too (shadowed entry, second suppressor)', () => {
    const { root, sp, changes } = setup()
    const s = scope(root)
    const before = changes()
    s.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'shadow' })
    sp.suppressRuntimeContext()
    sp.suppressRuntimeContext()
    sp.tools(() => ({ schemas: [] }))
    expect(changes()).toBe(before + 4)
  })

  it('a listener throw during registration: notify, undo, notify; caller gets the error; retry works', async () => {
    const { root, sp } = setup()
    const error = new Error('listener failed')
    let fail = true
    const log: string[] = []
    root.on('system-prompt/change', () => {
      log.push('notify')
      if (fail) {
        fail = false
        throw error
      }
    })
    expect(() => sp.section({ name: 'x', order: 1, text: 'X' })).toThrow(error)
    expect(log).toEqual(['notify', 'notify'])
    expect(names((await sp.assemble()).sections)).not.toContain('x')
    sp.section({ name: 'x', order: 1, text: 'X' })
    expect(names((await sp.assemble()).sections)).toContain('x')
  })

  it('a listener throw during a direct disposer call propagates, but the entry is gone and a repeat is a no-op', async () => {
    const { root, sp } = setup()
    const dispose = sp.variable('v', () => 'v')
    const listener = vi.fn(() => {
      throw new Error('boom')
    })
    root.on('system-prompt/change', listener)
    expect(dispose).toThrow('boom')
    expect((await sp.assemble()).variables).toEqual({})
    expect(dispose).not.toThrow()
    expect(listener).toHaveBeenCalledTimes(1)
  })

  it('a listener throw during fiber disposal goes to internal/error', () => {
    const { root } = setup()
    const p = plugin(root)
    p.ctx.systemPrompt.section({ name: 'x', order: 1, text: '' })
    const errors: unknown[] = []
    root.on('internal/error', (e) => void errors.push(e))
    const boom = new Error('boom')
    root.on('system-prompt/change', () => {
      throw boom
    })
    expect(() => p.dispose()).not.toThrow()
    return new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
      expect(errors).toContain(boom)
    })
  })
})
