import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Session, canonicalHeader, foldRequestHeader, headerEquals, type EpochHeader } from '../src/index.js'
import { header } from './helpers.js'

const tool = (name: string) => ({ name, description: `${name} tool`, parameters: { type: 'object' } })

describe('canonicalHeader', () => {
  it('keeps config verbatim, drops empty system/tools and flagless adapterDefaults', () => {
    const config = { provider: 'p', model: 'm', stop: [] as string[] }
    const h = canonicalHeader({ config, adapterDefaults: {}, system: '', tools: [] })
    expect(h).toEqual({ config })
    expect(h.config).toBe(config)
    expect('system' in h || 'tools' in h || 'adapterDefaults' in h).toBe(false)
  })

  it('a header without system, tools or adapterDefaults gets no such keys, not even undefined ones', () => {
    const config = { provider: 'p', model: 'm' }
    expect(Object.keys(canonicalHeader({ config }))).toEqual(['config'])
    expect(Object.keys(canonicalHeader({ config, system: 'S' }))).toEqual(['config', 'system'])
  })

  it('keeps adapterDefaults whole when a flag is true, and tools in their order', () => {
    const input: EpochHeader = {
      config: { provider: 'p', model: 'm', maxTokens: 5 },
      adapterDefaults: { maxTokens: true },
      system: 'S',
      tools: [tool('b'), tool('a')],
    }
    const h = canonicalHeader(input)
    expect(h).toEqual(input)
    expect(h).not.toBe(input)
    expect(h.tools!.map((t) => t.name)).toEqual(['b', 'a'])
  })
})

describe('headerEquals', () => {
  const base = header({ system: 'S', tools: [tool('a')] })
  it.each<[string, EpochHeader]>([
    ['provider', { ...base, config: { ...base.config, provider: 'q' } }],
    ['model', { ...base, config: { ...base.config, model: 'n' } }],
    ['reasoningEffort', { ...base, config: { ...base.config, reasoningEffort: 'high' as never } }],
    ['temperature', { ...base, config: { ...base.config, temperature: 0 } }],
    ['maxTokens', { ...base, config: { ...base.config, maxTokens: 1 } }],
    ['stop undefined vs []', { ...base, config: { ...base.config, stop: [] } }],
    ['adapter flag', { ...base, adapterDefaults: { reasoningEffort: true } }],
    ['system absent vs ""', { config: base.config, tools: base.tools }],
    ['tool order', { ...base, tools: [tool('a'), tool('b')] }],
    ['tool key order', { ...base, tools: [{ description: 'a tool', name: 'a', parameters: { type: 'object' } }] }],
  ])('differs on %s', (_name, other) => {
    expect(headerEquals(base, other)).toBe(false)
    expect(headerEquals(other, base)).toBe(false)
  })

  it('equal on equal fields; stop compared element-wise; absent tools equal []', () => {
    expect(headerEquals(base, structuredClone(base))).toBe(true)
    const a = header({ config: { provider: 'p', model: 'm', stop: ['x'] } })
    expect(headerEquals(a, header({ config: { provider: 'p', model: 'm', stop: ['x'] } }))).toBe(true)
    expect(headerEquals(a, header({ config: { provider: 'p', model: 'm', stop: ['y'] } }))).toBe(false)
    expect(headerEquals(header(), header({ tools: [] }))).toBe(true)
    expect(headerEquals(header({ system: '' }), header())).toBe(false)
  })
})

describe('headerEquals tool comparison agrees with pairwise JSON.stringify', () => {
  const withTools = (parameters: unknown) =>
    header({ tools: [{ name: 't', description: 'd', parameters: parameters as never }] })
  const holey = (): unknown[] => {
    const a: unknown[] = [1]
    a.length = 2
    return a
  }
  it.each<[string, unknown, unknown]>([
    ['trailing hole vs shorter array', holey(), [1]],
    ['hole vs null', holey(), [1, null]],
    ['undefined member vs absent', { a: 1, b: undefined }, { a: 1 }],
    ['NaN vs null', { n: Number.NaN }, { n: null }],
    ['Date vs its string', { d: new Date(0) }, { d: new Date(0).toISOString() }],
    ['own toJSON', { toJSON: () => 'x' }, 'x'],
  ])('%s', (_name, a, b) => {
    expect(headerEquals(withTools(a), withTools(b))).toBe(JSON.stringify(a) === JSON.stringify(b))
  })

  it('for random JSON trees, shared or cloned, in any key order', () => {
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(null, 0, -0, 1, 'x', true, undefined),
        tie('object'),
        tie('array'),
      ),
      object: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'type'), tie('node'), { maxKeys: 3 }),
      array: fc.array(tie('node'), { maxLength: 3 }),
    })).node
    const reorder = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reorder)
      if (typeof value !== 'object' || value === null) return value
      return Object.fromEntries(
        Object.entries(value)
          .reverse()
          .map(([k, v]) => [k, reorder(v)]),
      )
    }
    fc.assert(
      fc.property(tree, tree, fc.boolean(), (a, b, useReordered) => {
        const other = useReordered ? reorder(a) : b
        const expected = JSON.stringify(a) === JSON.stringify(other)
        expect(headerEquals(withTools(a), withTools(other))).toBe(expected)
        expect(headerEquals(withTools(a), withTools(structuredClone(a)))).toBe(true)
      }),
    )
  })
})

describe('foldRequestHeader and the session folds', () => {
  it('folds the last record, canonicalized; with none returns `from` itself or undefined', () => {
    const from = header()
    expect(foldRequestHeader([], from)).toBe(from)
    expect(foldRequestHeader([])).toBeUndefined()
    const s = Session.create('s')
    s.append('request/header', { header: header({ system: 'one' }), reason: 'initial' })
    s.append('request/header', { header: { ...header({ system: 'two', tools: [] }) }, reason: 'change' })
    expect(foldRequestHeader(s.events, from)).toEqual({ config: { provider: 'p', model: 'm' }, system: 'two' })
  })

  it('requestHeader(): undefined before a record, deep-frozen, identity kept until a new record', () => {
    const s = Session.create('s')
    expect(s.requestHeader()).toBeUndefined()
    s.append('request/header', { header: header({ system: 'S', tools: [tool('a')] }), reason: 'initial' })
    const h = s.requestHeader()!
    expect(h.system).toBe('S')
    expect(Object.isFrozen(h)).toBe(true)
    expect(Object.isFrozen(h.tools![0]!.parameters)).toBe(true)
    s.append('turn/start', { turn: 1 })
    expect(s.requestHeader()).toBe(h)
    s.append('request/header', { header: header({ system: '' }), reason: 'change' })
    expect(s.requestHeader()).toEqual({ config: { provider: 'p', model: 'm' } })
    expect(s.requestHeader()).not.toBe(h)
  })

  it('requestContext(): the last record’s data, so a record without contextWindow clears it', () => {
    const s = Session.create('s')
    expect(s.requestContext()).toBeUndefined()
    const first = s.append('request/context', { provider: 'p', model: 'm', contextWindow: 1000 })
    expect(s.requestContext()).toBe(first.data)
    expect(s.requestContext()).toBe(first.data)
    s.append('request/context', { provider: 'p', model: 'm' })
    expect(s.requestContext()).toEqual({ provider: 'p', model: 'm' })
    expect(Object.isFrozen(s.requestContext())).toBe(true)
  })

  it('headers never enter deriveMessages()', () => {
    const s = Session.create('s')
    s.append('request/header', { header: header({ system: 'S' }), reason: 'initial' })
    expect(s.deriveMessages()).toEqual([])
  })
})
