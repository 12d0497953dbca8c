import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST, orderTools, validateToolOrder } from '../src/index.js'
import { tool } from './helpers.js'

const names = (tools: { name: string }[]) => tools.map((t) => t.name)

describe('validateToolOrder', () => {
  it('accepts a list with exactly one rest entry', () => {
    expect(() => validateToolOrder(['plan', TOOL_ORDER_REST, 'shell'])).not.toThrow()
    expect(() => validateToolOrder([TOOL_ORDER_REST])).not.toThrow()
  })

  it('rejects the first entry seen twice, including a second rest entry', () => {
    expect(() => validateToolOrder(['a', 'b', 'a', 'b', TOOL_ORDER_REST])).toThrow('toolOrder lists "a" more than once')
    expect(() => validateToolOrder([TOOL_ORDER_REST, 'x', TOOL_ORDER_REST])).toThrow(
      'toolOrder lists "<unlisted-tools>" more than once',
    )
  })

  it('requires the rest entry; [] fails here', () => {
    const message = 'toolOrder must contain the "<unlisted-tools>" rest entry (where unlisted tools are inserted)'
    expect(() => validateToolOrder(['plan'])).toThrow(message)
    expect(() => validateToolOrder([])).toThrow(message)
  })

  it('checks duplicates before the rest entry', () => {
    expect(() => validateToolOrder(['a', 'a'])).toThrow('toolOrder lists "a" more than once')
  })

  it('does not check names against registered tools', () => {
    expect(() => validateToolOrder(['never-registered', TOOL_ORDER_REST])).not.toThrow()
  })
})

describe('orderTools', () => {
  it('rejects the reserved name with or without toolOrder', () => {
    const message =
      'tool provider returned reserved tool name "<unlisted-tools>" (reserved for toolOrder\'s rest entry)'
    expect(() => orderTools([tool('a'), tool(TOOL_ORDER_REST)], undefined, new Set())).toThrow(message)
    expect(() => orderTools([tool(TOOL_ORDER_REST)], [TOOL_ORDER_REST], new Set([TOOL_ORDER_REST]))).toThrow(message)
  })

  it('canonical order compares code units: uppercase < _ < lowercase, never locale', () => {
    const input = [tool('b'), tool('_x'), tool('a'), tool('B'), tool('é'), tool('Z'), tool('aa')]
    expect(names(orderTools(input, undefined, new Set()))).toEqual(['B', 'Z', '_x', 'a', 'aa', 'b', 'é'])
  })

  it('keeps same-named tools in collection order and returns a new array', () => {
    const first = tool('x')
    const second = tool('x')
    const input = [tool('y'), first, second]
    const out = orderTools(input, undefined, new Set())
    expect(out[0]).toBe(first)
    expect(out[1]).toBe(second)
    expect(out).not.toBe(input)
    expect(names(input)).toEqual(['y', 'x', 'x'])
  })

  it('the chapter case: zulu, alpha, mike → alpha, mike, zulu', () => {
    expect(names(orderTools([tool('zulu'), tool('alpha'), tool('mike')], undefined, new Set()))).toEqual([
      'alpha',
      'mike',
      'zulu',
    ])
  })

  it('lays out listed names and the rest entry (spec example 3)', () => {
    const collected = [tool('shell'), tool('grep_b'), tool('plan'), tool('grep_a')]
    const known = new Set(names(collected))
    expect(names(orderTools(collected, ['plan', TOOL_ORDER_REST, 'shell'], known))).toEqual([
      'plan',
      'grep_a',
      'grep_b',
      'shell',
    ])
  })

  it('a listed name emits every tool of that name in collection order', () => {
    const a1 = tool('a', { n: 1 })
    const a2 = tool('a', { n: 2 })
    const out = orderTools([a1, tool('z'), a2], [TOOL_ORDER_REST, 'a'], new Set(['a', 'z']))
    expect(out).toEqual([tool('z'), a1, a2])
    expect(out[1]).toBe(a1)
    expect(out[2]).toBe(a2)
  })

  it('rejects unknown entries in list order with the known list (spec example 4)', () => {
    expect(() =>
      orderTools([tool('plan')], ['plan', 'phantom', TOOL_ORDER_REST, 'ghost'], new Set(['shell', 'plan'])),
    ).toThrow('toolOrder lists unregistered tools "phantom", "ghost"; known tools: plan, shell')
  })

  it('singular wording and (none)', () => {
    expect(() => orderTools([], ['ghost', TOOL_ORDER_REST], new Set())).toThrow(
      'toolOrder lists unregistered tool "ghost"; known tools: (none)',
    )
  })

  it('sorts the known list by code unit', () => {
    expect(() => orderTools([], ['q', TOOL_ORDER_REST], new Set(['b', 'A', '_c']))).toThrow('known tools: A, _c, b')
  })

  it('a known name without a visible schema is allowed and contributes nothing (restriction)', () => {
    expect(names(orderTools([tool('read')], ['write', 'read', TOOL_ORDER_REST], new Set(['read', 'write'])))).toEqual([
      'read',
    ])
  })

  it('a visible schema not in knownNames still fails a toolOrder entry for it', () => {
    expect(() => orderTools([tool('secret')], ['secret', TOOL_ORDER_REST], new Set(['other']))).toThrow(
      'toolOrder lists unregistered tool "secret"; known tools: other',
    )
  })

  it('canonical order is independent of the collection permutation (fast-check)', () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,5}$/)
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 12 }), fc.infiniteStream(fc.nat()), (unique, seeds) => {
        const tools = unique.map((n) => tool(n))
        const shuffled = [...tools]
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = (seeds.next().value as number) % (i + 1)
          ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
        }
        const a = orderTools(tools, undefined, new Set())
        const b = orderTools(shuffled, undefined, new Set())
        expect(JSON.stringify(b)).toBe(JSON.stringify(a))
        for (let i = 1; i < a.length; i++) expect(a[i - 1]!.name < a[i]!.name).toBe(true)
      }),
    )
  })
})
