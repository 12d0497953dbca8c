import { describe, expect, it, vi } from 'vitest'
import { plugin, scope, setup, tool } from './helpers.js'

const names = (list: { name: string }[]) => list.map((entry) => entry.name)

/** Every ordering of `items` (small inputs only). */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]]
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  )
}

describe('scope view', () => {
  it('tie order with a shadow (spec example 1), in every registration order; the shadowed provider never runs', async () => {
    type Step = 'global intro' | 'global rules' | 'scope extras' | 'scope intro'
    const steps: Step[] = ['global intro', 'global rules', 'scope extras', 'scope intro']
    for (const permutation of permutations(steps)) {
      const { root, sp } = setup({ includeHarnessIdentity: false })
      const globalIntro = vi.fn(() => 'global intro')
      const s = scope(root)
      for (const step of permutation) {
        if (step === 'global intro') sp.section({ name: 'intro', order: 5, text: globalIntro })
        if (step === 'global rules') sp.section({ name: 'rules', order: 5, text: 'rules' })
        if (step === 'scope extras') s.ctx.systemPrompt.section({ name: 'extras', order: 5, text: 'extras' })
        if (step === 'scope intro') s.ctx.systemPrompt.section({ name: 'intro', order: 5, text: 'scoped intro' })
      }
      const scoped = await sp.assemble({ scope: s.key })
      expect(
        scoped.sections.filter((x) => x.name !== 'deployment:persona'),
        permutation.join(', '),
      ).toEqual([
        { name: 'extras', text: 'extras' },
        { name: 'intro', text: 'scoped intro' },
        { name: 'rules', text: 'rules' },
      ])
      expect(globalIntro).not.toHaveBeenCalled()
      const global = await sp.assemble()
      expect(names(global.sections)).toEqual(['deployment:persona', 'intro', 'rules'])
      expect(globalIntro).toHaveBeenCalledTimes(1)
    }
  })

  it('equal orders sort by name in code-unit order, whatever layer an entry comes from', async () => {
    const { root, sp } = setup({ includeHarnessIdentity: false })
    const parent = scope(root)
    const child = scope(root, { parent: parent.key })
    child.ctx.systemPrompt.section({ name: 'Near', order: 1, text: 'n' })
    parent.ctx.systemPrompt.section({ name: 'far', order: 1, text: 'f' })
    sp.section({ name: 'glob', order: 1, text: 'g' })
    sp.section({ name: 'zz-early', order: 0.5, text: 'e' })
    sp.section({ name: '_mid', order: 1, text: 'm' })
    // Code units, not locale: uppercase before `_`, `_` before lowercase.
    expect(names((await sp.assemble({ scope: child.key })).sections)).toEqual([
      'deployment:persona',
      'zz-early',
      'Near',
      '_mid',
      'far',
      'glob',
    ])
  })

  it('runtime contexts follow the same total order (order, then name)', async () => {
    const { root, sp } = setup({ includeHarnessIdentity: false })
    const s = scope(root)
    s.ctx.systemPrompt.context({ name: 'b', order: 2, text: 'scoped b' })
    sp.context({ name: 'c', order: 2, text: 'c' })
    sp.context({ name: 'b', order: 2, text: 'global b' })
    sp.context({ name: 'a', order: 3, text: 'a' })
    s.ctx.systemPrompt.context({ name: 'a0', order: 2, text: 'a0' })
    expect((await sp.assemble({ scope: s.key })).contexts).toEqual([
      { name: 'a0', text: 'a0' },
      { name: 'b', text: 'scoped b' },
      { name: 'c', text: 'c' },
      { name: 'a', text: 'a' },
    ])
    expect(names((await sp.assemble()).contexts)).toEqual(['b', 'c', 'a'])
  })

  it('descendant and sibling layers are not visible; an unknown key yields the global view', async () => {
    const { root, sp } = setup({ includeHarnessIdentity: false })
    const parent = scope(root)
    const child = scope(root, { parent: parent.key })
    const sibling = scope(root)
    const childText = vi.fn(() => 'child')
    child.ctx.systemPrompt.section({ name: 'c', order: 1, text: childText })
    sibling.ctx.systemPrompt.tools(() => ({ schemas: [tool('sib')] }))
    parent.ctx.systemPrompt.variable('p', () => 'parent')
    const atParent = await sp.assemble({ scope: parent.key })
    expect(names(atParent.sections)).toEqual(['deployment:persona'])
    expect(atParent.tools).toEqual([])
    expect(atParent.variables).toEqual({ p: 'parent' })
    expect(childText).not.toHaveBeenCalled()
    const unknown = await sp.assemble({ scope: {} })
    expect(unknown.variables).toEqual({})
    expect(names((await sp.assemble({ scope: child.key })).sections)).toEqual(['deployment:persona', 'c'])
  })

  it('anonymous tables accumulate: global, then farthest chain layer, down to the nearest', async () => {
    const { root, sp } = setup({ toolOrder: ['<unlisted-tools>'] })
    const parent = scope(root)
    const child = scope(root, { parent: parent.key })
    const calls: string[] = []
    child.ctx.systemPrompt.tools(() => (calls.push('child'), { schemas: [tool('b')] }))
    parent.ctx.systemPrompt.tools(() => (calls.push('parent'), { schemas: [tool('b')] }))
    sp.tools(() => (calls.push('global'), { schemas: [tool('a')] }))
    const a = await sp.assemble({ scope: child.key })
    expect(calls).toEqual(['global', 'parent', 'child'])
    expect(names(a.tools)).toEqual(['a', 'b', 'b'])
  })

  it('shadowed variable providers are never evaluated; the key sits at its effective layer position', async () => {
    const { root, sp } = setup()
    const globalCwd = vi.fn(() => 'global')
    sp.variable('cwd', globalCwd)
    sp.variable('model', () => 'm')
    const s = scope(root)
    s.ctx.systemPrompt.variable('cwd', () => 'scoped')
    const a = await sp.assemble({ scope: s.key })
    expect(globalCwd).not.toHaveBeenCalled()
    expect(Object.keys(a.variables)).toEqual(['model', 'cwd'])
    expect(a.variables).toEqual({ model: 'm', cwd: 'scoped' })
    expect((await sp.assemble()).variables).toEqual({ cwd: 'global', model: 'm' })
  })

  it('complete is read from the effective entry: a non-complete scoped shadow switches complete mode off', async () => {
    const { root, sp } = setup()
    sp.section({ name: 'exact', order: 10, text: 'EXACT', complete: true })
    sp.section({ name: 'other', order: 20, text: 'OTHER' })
    const s = scope(root)
    s.ctx.systemPrompt.section({ name: 'exact', order: 10, text: 'scoped exact' })
    expect((await sp.assemble()).sections).toEqual([{ name: 'exact', text: 'EXACT' }])
    expect(names((await sp.assemble({ scope: s.key })).sections)).toEqual([
      'harness:identity',
      'deployment:persona',
      'exact',
      'other',
    ])
  })

  it('two complete sections in different layers of one chain both count', async () => {
    const { root, sp } = setup()
    sp.section({ name: 'zeta', order: 1, text: 'G', complete: true })
    const s = scope(root)
    s.ctx.systemPrompt.section({ name: 'alpha', order: 2, text: 'S', complete: true })
    await expect(sp.assemble({ scope: s.key })).rejects.toThrow(
      'multiple complete prompt sections are active: "zeta", "alpha"',
    )
    expect((await sp.assemble()).sections).toEqual([{ name: 'zeta', text: 'G' }])
  })

  it('suppressors stack and dispose independently; a scoped one suppresses only its view', async () => {
    const { root, sp } = setup()
    sp.context({ name: 'env', order: 1, text: 'E' })
    const s = scope(root)
    const off = s.ctx.systemPrompt.suppressRuntimeContext()
    expect((await sp.assemble({ scope: s.key })).contexts).toEqual([])
    expect((await sp.assemble()).contexts).toEqual([{ name: 'env', text: 'E' }])
    const g1 = sp.suppressRuntimeContext()
    const g2 = sp.suppressRuntimeContext()
    off()
    g1()
    expect((await sp.assemble()).contexts).toEqual([])
    expect((await sp.assemble({ scope: s.key })).contexts).toEqual([])
    g2()
    expect((await sp.assemble({ scope: s.key })).contexts).toEqual([{ name: 'env', text: 'E' }])
  })

  it('includeRuntimeContext: false installs a global suppressor no scope can undo', async () => {
    const { root, sp } = setup({ includeRuntimeContext: false })
    const provider = vi.fn(() => 'E')
    sp.context({ name: 'env', order: 1, text: provider })
    const s = scope(root)
    s.ctx.systemPrompt.context({ name: 'env', order: 1, text: provider })
    expect((await sp.assemble({ scope: s.key })).contexts).toEqual([])
    expect(provider).not.toHaveBeenCalled()
  })

  it('writes to exactly the caller scope layer, also from plugins loaded under the scope, never an ancestor', async () => {
    const { root, sp } = setup({ includeHarnessIdentity: false })
    const parent = scope(root)
    const child = scope(root, { parent: parent.key })
    const p = plugin(child.ctx)
    p.ctx.systemPrompt.section({ name: 'from-plugin', order: 1, text: 'P' })
    child.ctx.extend({}).systemPrompt.variable('x', () => 'x')
    expect(names((await sp.assemble({ scope: parent.key })).sections)).toEqual(['deployment:persona'])
    expect((await sp.assemble({ scope: parent.key })).variables).toEqual({})
    const atChild = await sp.assemble({ scope: child.key })
    expect(names(atChild.sections)).toEqual(['deployment:persona', 'from-plugin'])
    expect(atChild.variables).toEqual({ x: 'x' })
    p.dispose()
    expect(names((await sp.assemble({ scope: child.key })).sections)).toEqual(['deployment:persona'])
  })

  it('a direct disposer call reclaims an emptied scoped layer at once', () => {
    const { root, sp } = setup()
    const s = scope(root)
    const a = s.ctx.systemPrompt.tools(() => ({ schemas: [] }))
    const b = s.ctx.systemPrompt.suppressRuntimeContext()
    const layers = (sp as unknown as { layers: { peek(k: object): unknown } }).layers
    a()
    expect(layers.peek(s.key)).toBeDefined()
    b()
    expect(layers.peek(s.key)).toBeUndefined()
  })
})
