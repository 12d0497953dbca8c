import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bindScopeParent, scopeChainOf, scopeParentOf } from '@bridle/scope'
import { chainIncludes } from '../src/parent.js'

const KEY_ERROR = '@bridle/scope: scope key must be an object'
const REBIND_ERROR =
  '@bridle/scope: scope key is already bound to a parent; re-linking requires the binding returned by the original bind'
const CYCLE_ERROR = '@bridle/scope: scope parent link would form a cycle'

describe('bindScopeParent failures', () => {
  it('rejects non-object keys and parents with a TypeError', () => {
    for (const bad of [null, undefined, 'agent', 1, Symbol('s'), true]) {
      expect(() => bindScopeParent(bad as never, {})).toThrow(new TypeError(KEY_ERROR))
      expect(() => bindScopeParent({}, bad as never)).toThrow(new TypeError(KEY_ERROR))
    }
    const err = (() => {
      try {
        bindScopeParent('x' as never, {})
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(TypeError)
  })

  it('refuses to bind a key that already has a parent, and keeps the old link', () => {
    const key = {}
    const first = {}
    bindScopeParent(key, first)
    expect(() => bindScopeParent(key, {})).toThrow(REBIND_ERROR)
    expect(() => bindScopeParent(key, first)).toThrow(REBIND_ERROR)
    expect(scopeParentOf(key)).toBe(first)
  })

  it('treats a self link as a cycle', () => {
    const key = {}
    expect(() => bindScopeParent(key, key)).toThrow(CYCLE_ERROR)
    expect(scopeParentOf(key)).toBeUndefined()
  })

  it('refuses a link that closes a longer cycle and records nothing', () => {
    const a = {}
    const b = {}
    const c = {}
    bindScopeParent(b, a)
    bindScopeParent(c, b)
    expect(() => bindScopeParent(a, c)).toThrow(CYCLE_ERROR)
    expect(scopeParentOf(a)).toBeUndefined()
    expect(scopeChainOf(c)).toEqual([c, b, a])
  })

  it('rebind runs the same checks', () => {
    const a = {}
    const b = {}
    const c = {}
    const binding = bindScopeParent(b, a)
    bindScopeParent(c, b)
    expect(() => binding.rebind(c)).toThrow(CYCLE_ERROR)
    expect(() => binding.rebind(b)).toThrow(CYCLE_ERROR)
    expect(() => binding.rebind('a' as never)).toThrow(new TypeError(KEY_ERROR))
    expect(scopeParentOf(b)).toBe(a)
  })
})

describe('parent chain', () => {
  it('records links and reads chains nearest first', () => {
    const preset = {}
    const team = () => {}
    const agent = {}
    bindScopeParent(preset, team)
    bindScopeParent(agent, preset)
    expect(scopeParentOf(agent)).toBe(preset)
    expect(scopeParentOf(team)).toBeUndefined()
    expect(scopeChainOf(agent)).toEqual([agent, preset, team])
    expect(scopeChainOf(team)).toEqual([team])
    expect(scopeChainOf(undefined)).toEqual([])
  })

  it('rebind replaces the link and chains are read live', () => {
    const a = {}
    const b = {}
    const child = {}
    const binding = bindScopeParent(child, a)
    const before = scopeChainOf(child)
    binding.rebind(b)
    expect(scopeParentOf(child)).toBe(b)
    expect(scopeChainOf(child)).toEqual([child, b])
    expect(before).toEqual([child, a])
    binding.rebind(a)
    expect(scopeChainOf(child)).toEqual([child, a])
  })

  it('never lets any sequence of binds and rebinds form a cycle (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(7), fc.nat(7)), { maxLength: 40 }), (ops) => {
        const keys = Array.from({ length: 8 }, () => ({}))
        const bindings = new Map<object, { rebind(p: object): void }>()
        for (const [i, j] of ops) {
          const key = keys[i]!
          const parent = keys[j]!
          const wouldCycle = scopeChainOf(parent).includes(key)
          const existing = bindings.get(key)
          let threw = false
          try {
            if (existing) existing.rebind(parent)
            else bindings.set(key, bindScopeParent(key, parent))
          } catch {
            threw = true
          }
          expect(threw).toBe(wouldCycle)
          if (!threw) expect(scopeParentOf(key)).toBe(parent)
        }
        for (const key of keys) {
          const chain = scopeChainOf(key)
          expect(new Set(chain).size).toBe(chain.length)
          expect(chain[0]).toBe(key)
        }
      }),
    )
  })
})

describe('chainIncludes', () => {
  it('agrees with scopeChainOf(key).includes(candidate) on random parent forests', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 12 }), fc.nat(), fc.nat(), (links, a, b) => {
        const keys = links.map(() => ({}))
        // key i may take a parent among keys 0..i-1 only, so the forest has no cycle
        links.forEach((link, i) => {
          if (i > 0 && link % 3 !== 0) bindScopeParent(keys[i]!, keys[link % i]!)
        })
        const key = keys[a % keys.length]!
        const candidate = keys[b % keys.length]!
        expect(chainIncludes(key, candidate)).toBe(scopeChainOf(key).includes(candidate))
      }),
    )
  })
})
