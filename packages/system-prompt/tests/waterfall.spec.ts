import { carrierKeyOf, isScopeCarrier } from '@bridle/scope'
import { describe, expect, it, vi } from 'vitest'
import type { PromptAssembly } from '../src/index.js'
import { renderPrompt } from '../src/index.js'
import { scope, setup, tool } from './helpers.js'

const names = (list: { name: string }[]) => list.map((entry) => entry.name)

describe('system-prompt/assemble waterfall', () => {
  it('listeners share the assembly object, get the caller context, and this is the scope carrier', async () => {
    const { root, sp } = setup()
    const s = scope(root)
    const seen: { self: unknown; assembly: PromptAssembly }[] = []
    root.on('system-prompt/assemble', function (this: unknown, assembly, _c, next) {
      seen.push({ self: this, assembly })
      return next()
    })
    root.on('system-prompt/assemble', function (this: unknown, assembly, _c, next) {
      seen.push({ self: this, assembly })
      return next()
    })
    const result = await sp.assemble({ scope: s.key })
    expect(seen).toHaveLength(2)
    expect(seen[0]!.assembly).toBe(seen[1]!.assembly)
    expect(result).toBe(seen[0]!.assembly)
    expect(isScopeCarrier(seen[0]!.self)).toBe(true)
    expect(carrierKeyOf(seen[0]!.self)).toBe(s.key)
  })

  it('admits untagged, same-scope, ancestor and global listeners; excludes sibling and descendant ones', async () => {
    const { root, sp } = setup()
    const parent = scope(root)
    const child = scope(root, { parent: parent.key })
    const grandchild = scope(root, { parent: child.key })
    const sibling = scope(root)
    const heard: string[] = []
    const listen = (label: string) => (_a: PromptAssembly, _c: unknown, next: () => Promise<PromptAssembly>) => {
      heard.push(label)
      return next()
    }
    root.on('system-prompt/assemble', listen('untagged'))
    parent.ctx.on('system-prompt/assemble', listen('parent'))
    child.ctx.on('system-prompt/assemble', listen('child'))
    grandchild.ctx.on('system-prompt/assemble', listen('grandchild'))
    sibling.ctx.on('system-prompt/assemble', listen('sibling'))
    sibling.ctx.on('system-prompt/assemble', listen('sibling-global'), { global: true })
    await sp.assemble({ scope: child.key })
    expect(heard).toEqual(['untagged', 'parent', 'child', 'sibling-global'])
    heard.length = 0
    await sp.assemble()
    expect(heard).toEqual(['untagged', 'sibling-global'])
  })

  it('prepended listeners run first; the outermost return value is the result', async () => {
    const { root, sp } = setup()
    const order: string[] = []
    root.on('system-prompt/assemble', (_a, _c, next) => (order.push('normal'), next()))
    root.on('system-prompt/assemble', (_a, _c, next) => (order.push('prepended'), next()), { prepend: true })
    await sp.assemble()
    expect(order).toEqual(['prepended', 'normal'])
  })

  it('listeners may mutate, post-process, or short-circuit; variables they add are available at render', async () => {
    const { root, sp } = setup({ includeHarnessIdentity: false, persona: 'Hi {{who}}' })
    const inner = vi.fn((_a: PromptAssembly, _c: unknown, next: () => Promise<PromptAssembly>) => next())
    root.on('system-prompt/assemble', async (assembly, _c, next) => {
      assembly.variables.who = 'Ada'
      const result = await next()
      return { ...result, tools: [...result.tools, tool('added')] }
    })
    root.on('system-prompt/assemble', inner)
    const a = await sp.assemble()
    expect(renderPrompt(a)).toBe('Hi Ada')
    expect(names(a.tools)).toEqual(['added'])
    expect(inner).toHaveBeenCalledTimes(1)

    const own: PromptAssembly = { sections: [{ name: 'own', text: 'mine' }], contexts: [], tools: [], variables: {} }
    root.on('system-prompt/assemble', () => own, { prepend: true })
    expect(await sp.assemble()).toBe(own)
    expect(inner).toHaveBeenCalledTimes(1)
  })

  it('next() is memoised per listener: calling it twice skips nothing and runs nothing twice', async () => {
    const { root, sp } = setup()
    const inner = vi.fn((_a: PromptAssembly, _c: unknown, next: () => Promise<PromptAssembly>) => next())
    root.on('system-prompt/assemble', async (_a, _c, next) => {
      const first = await next()
      const second = await next()
      expect(second).toBe(first)
      return second
    })
    root.on('system-prompt/assemble', inner)
    await sp.assemble()
    expect(inner).toHaveBeenCalledTimes(1)
  })

  it('a listener throw or rejection rejects assemble()', async () => {
    const s1 = setup()
    s1.root.on('system-prompt/assemble', () => {
      throw new Error('sync listener')
    })
    await expect(s1.sp.assemble()).rejects.toThrow('sync listener')
    const s2 = setup()
    s2.root.on('system-prompt/assemble', async () => {
      throw new Error('async listener')
    })
    await expect(s2.sp.assemble()).rejects.toThrow('async listener')
  })

  it('a non-object result rejects', async () => {
    for (const value of [undefined, null, 'text', 3]) {
      const { root, sp } = setup()
      root.on('system-prompt/assemble', () => value as never)
      await expect(sp.assemble()).rejects.toThrow(
        new TypeError('system-prompt/assemble listeners must resolve to an assembly object'),
      )
    }
  })

  it('an abort during the waterfall rejects with signal.reason after it', async () => {
    const { root, sp } = setup()
    const controller = new AbortController()
    const reason = new Error('stop')
    root.on('system-prompt/assemble', (_a, _c, next) => {
      controller.abort(reason)
      return next()
    })
    await expect(sp.assemble({ signal: controller.signal })).rejects.toBe(reason)
  })
})

describe('complete sections and restoration', () => {
  it('spec example 2: a prepended listener rewrites the text, pushes a section and a tool → original text, tool kept', async () => {
    const { root, sp } = setup()
    const other = vi.fn(() => 'other')
    sp.section({ name: 'exact', order: 10, text: 'original', complete: true })
    sp.section({ name: 'other', order: 20, text: other })
    let listenerSaw: string[] = []
    root.on(
      'system-prompt/assemble',
      (assembly, _c, next) => {
        listenerSaw = names(assembly.sections)
        assembly.sections.find((x) => x.name === 'exact')!.text = 'rewritten'
        assembly.sections.push({ name: 'pushed', text: 'P' })
        assembly.tools.push(tool('pushed'))
        assembly.variables.extra = 'x'
        return next()
      },
      { prepend: true },
    )
    const a = await sp.assemble()
    expect(a.sections).toEqual([{ name: 'exact', text: 'original' }])
    expect(names(a.tools)).toEqual(['pushed'])
    expect(a.variables).toEqual({ extra: 'x' })
    expect(other).toHaveBeenCalledTimes(1)
    expect(listenerSaw).toEqual(['harness:identity', 'deployment:persona', 'exact', 'other'])
  })

  it('complete mode survives removal and short circuits, returning a shallow copy with extra properties', async () => {
    const { root, sp } = setup()
    sp.section({ name: 'exact', order: 10, text: 'only', complete: true })
    const tools = [tool('t')]
    const variables = { v: '1' }
    const own = { sections: [], contexts: [{ name: 'c', text: 'C' }], tools, variables, extra: 7 }
    root.on('system-prompt/assemble', () => own)
    const a = await sp.assemble()
    expect(a).not.toBe(own)
    expect(a).toEqual({
      sections: [{ name: 'exact', text: 'only' }],
      contexts: [{ name: 'c', text: 'C' }],
      tools,
      variables,
      extra: 7,
    })
    expect(a.tools).toBe(tools)
    expect(a.variables).toBe(variables)
  })

  it('suppression discards contexts added by listeners; no context provider runs', async () => {
    const { root, sp } = setup({ includeRuntimeContext: false })
    const provider = vi.fn(() => 'E')
    sp.context({ name: 'env', order: 1, text: provider })
    root.on('system-prompt/assemble', (assembly, _c, next) => {
      expect(assembly.contexts).toEqual([])
      assembly.contexts.push({ name: 'sneaky', text: 'S' })
      return next()
    })
    const a = await sp.assemble()
    expect(a.contexts).toEqual([])
    expect(provider).not.toHaveBeenCalled()
  })

  it('complete mode plus suppression yields sections [completeSection] and contexts []', async () => {
    const { sp } = setup()
    sp.suppressRuntimeContext()
    sp.context({ name: 'env', order: 1, text: 'E' })
    sp.section({ name: 'exact', order: 1, text: 'X', complete: true })
    const a = await sp.assemble()
    expect(a.sections).toEqual([{ name: 'exact', text: 'X' }])
    expect(a.contexts).toEqual([])
  })

  it('without complete mode or suppression the waterfall result itself is returned', async () => {
    const { root, sp } = setup()
    const own: PromptAssembly = { sections: [], contexts: [], tools: [], variables: {} }
    root.on('system-prompt/assemble', () => own)
    expect(await sp.assemble()).toBe(own)
  })
})
