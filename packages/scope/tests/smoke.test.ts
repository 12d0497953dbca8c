import { Context } from 'cordis'
import { expect, it } from 'vitest'
import { createScope, scopeOf, scopeTarget, waterfall, NamedEntries, ScopedLayers } from '@bridle/scope'

it('smoke', async () => {
  const root = new Context()
  const key = {}
  const s = createScope(root, key)
  expect(scopeOf(s.ctx)).toBe(key)
  const seen: string[] = []
  root.on('x/ping' as any, () => { seen.push('untagged') })
  s.ctx.on('x/ping' as any, () => { seen.push('tagged') })
  root.emit(scopeTarget(root, undefined) as any, 'x/ping' as any)
  expect(seen).toEqual(['untagged'])
  const r = waterfall(root, null, 'x/ping' as any, ((...a: any[]) => 'fb') as any)
  expect(r).toBe(undefined)
  const layers = new ScopedLayers(() => ({ names: new NamedEntries<number>((n) => new Error(n)), isEmpty() { return this.names.isEmpty() } }), () => {})
  const d = layers.effect(s.ctx, (l) => l.names.insert('a', 1))
  expect(layers.peek(key)?.names.get('a')).toBe(1)
  d()
  expect(layers.peek(key)).toBeUndefined()
})
