import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderContextSnapshot, renderPrompt } from '../src/index.js'
import { plugin, setup, tool } from './helpers.js'

/** One plugin's contribution: a tool, and optionally a section with a unique order. */
interface Contribution {
  tool: string
  order: number
}

async function assembleWith(contributions: Contribution[], permutation: number[]) {
  const { root, sp } = setup({ persona: 'persona for {{user}}' })
  sp.variable('user', () => 'Ada')
  for (const index of permutation) {
    const c = contributions[index]!
    const p = plugin(root).ctx.systemPrompt
    p.tools(() => ({ schemas: [tool(c.tool, { type: 'object', properties: { [c.tool]: { type: 'string' } } })] }))
    p.section({ name: `section-${c.tool}`, order: c.order, text: `uses ${c.tool}` })
    p.context({ name: `context-${c.tool}`, order: c.order, text: `${c.tool}: ok` })
  }
  const assembly = await sp.assemble()
  return {
    json: JSON.stringify(assembly),
    system: renderPrompt(assembly),
    snapshot: renderContextSnapshot(assembly),
    tools: assembly.tools.map((t) => t.name),
  }
}

describe('properties', () => {
  it('zulu, alpha, mike in every registration order assemble byte-identically as alpha, mike, zulu', async () => {
    const contributions = [
      { tool: 'zulu', order: 3 },
      { tool: 'alpha', order: 1 },
      { tool: 'mike', order: 2 },
    ]
    const permutations = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ]
    const results = await Promise.all(permutations.map((p) => assembleWith(contributions, p)))
    for (const result of results) {
      expect(result.tools).toEqual(['alpha', 'mike', 'zulu'])
      expect(result).toEqual(results[0])
    }
  })

  it('canonical order and the whole assembly are independent of the registration permutation', async () => {
    const contributions = fc
      .uniqueArray(fc.stringMatching(/^[A-Za-z_][a-z0-9_]{0,5}$/), { minLength: 1, maxLength: 8 })
      .chain((tools) =>
        fc.tuple(
          fc.constant(tools.map((name, i) => ({ tool: name, order: i * 1.5 - 3 }))),
          fc.shuffledSubarray(
            tools.map((_, i) => i),
            { minLength: tools.length, maxLength: tools.length },
          ),
          fc.shuffledSubarray(
            tools.map((_, i) => i),
            { minLength: tools.length, maxLength: tools.length },
          ),
        ),
      )
    await fc.assert(
      fc.asyncProperty(contributions, async ([list, first, second]) => {
        const a = await assembleWith(list, first)
        const b = await assembleWith(list, second)
        expect(b).toEqual(a)
        const sorted = [...a.tools].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
        expect(a.tools).toEqual(sorted)
      }),
      { numRuns: 40 },
    )
  })

  it('mutating an assembly never leaks into the next', async () => {
    const mutation = fc.constantFrom(
      'push-section',
      'edit-section',
      'pop-tool',
      'edit-parameters',
      'edit-description',
      'add-variable',
      'edit-variable',
      'edit-context',
      'clear-contexts',
    )
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 6 }), async (mutations) => {
        const { sp } = setup({ persona: 'p' })
        const parameters = { type: 'object', properties: { a: { type: 'string', enum: ['x'] } } }
        sp.tools(() => ({ schemas: [tool('t', parameters), tool('u')] }))
        sp.variable('v', () => 'value')
        sp.context({ name: 'env', order: 1, text: 'E' })
        sp.section({ name: 's', order: 1, text: () => 'S' })
        const first = await sp.assemble()
        const snapshot = structuredClone(first)
        for (const m of mutations) {
          if (m === 'push-section') first.sections.push({ name: 'x', text: 'x' })
          if (m === 'edit-section') first.sections[0]!.text = 'changed'
          if (m === 'pop-tool') first.tools.pop()
          if (m === 'edit-parameters' && first.tools[0]) {
            ;(
              (first.tools[0].parameters.properties as Record<string, { enum: string[] }>).a as { enum: string[] }
            ).enum.push('y')
          }
          if (m === 'edit-description' && first.tools[0]) first.tools[0].description = 'changed'
          if (m === 'add-variable') first.variables.added = 'a'
          if (m === 'edit-variable') first.variables.v = 'changed'
          if (m === 'edit-context' && first.contexts[0]) first.contexts[0].text = 'changed'
          if (m === 'clear-contexts') first.contexts.length = 0
        }
        const second = await sp.assemble()
        expect(second).toEqual(snapshot)
        expect(parameters.properties.a.enum).toEqual(['x'])
      }),
      { numRuns: 50 },
    )
  })
})
