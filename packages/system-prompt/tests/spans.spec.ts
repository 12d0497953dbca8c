import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderPrompt, renderPromptSpans, sectionOrigin, type PromptAssembly } from '../src/index.js'
import { scope, setup } from './helpers.js'

describe('renderPromptSpans', () => {
  it('names the section, order and layer of every span, and each span slices its own text', async () => {
    const { root, sp } = setup({ persona: 'You help {{user}}.' })
    sp.variable('user', () => 'Ada')
    sp.section({ name: 'rules', order: 100, text: 'Rule one.\n\nRule two.' })
    sp.section({ name: 'empty', order: 50, text: '' })
    const s = scope(root)
    s.ctx.systemPrompt.section({ name: 'rules', order: 100, text: 'Scoped rules.' })
    s.ctx.systemPrompt.section({ name: 'extra', order: 7.5, text: 'Extra.' })

    const globalView = renderPromptSpans(await sp.assemble())
    expect(globalView.spans).toEqual([
      { name: 'harness:identity', order: -100, scope: 'global', start: 0, end: 38 },
      { name: 'deployment:persona', order: 0, scope: 'global', start: 40, end: 53 },
      { name: 'rules', order: 100, scope: 'global', start: 55, end: 75 },
    ])
    const scoped = await sp.assemble({ scope: s.key })
    const view = renderPromptSpans(scoped)
    expect(view.text).toBe(renderPrompt(scoped))
    expect(view.spans.map((span) => [span.name, span.order, span.scope])).toEqual([
      ['harness:identity', -100, 'global'],
      ['deployment:persona', 0, 'global'],
      ['extra', 7.5, 'scoped'],
      ['rules', 100, 'scoped'],
    ])
    for (const span of view.spans) {
      const section = scoped.sections.find((x) => x.name === span.name)!
      expect(view.text.slice(span.start, span.end)).toBe(section.text.replace('{{user}}', 'Ada'))
    }
    expect(sectionOrigin(scoped.sections[0]!)).toEqual({ order: -100, scope: 'global' })
  })

  it('a section a system-prompt/assemble listener builds has a span without order or scope; one it passes through keeps them', async () => {
    const { root, sp } = setup({ includeHarnessIdentity: false, persona: 'Persona.' })
    root.on(
      'system-prompt/assemble',
      (assembly: PromptAssembly, _context: unknown, next: () => Promise<PromptAssembly>) => {
        assembly.sections.push({ name: 'listener:added', text: 'Added by a listener.' })
        return next()
      },
    )
    const { spans, text } = renderPromptSpans(await sp.assemble())
    expect(text).toBe('Persona.\n\nAdded by a listener.')
    expect(spans).toEqual([
      { name: 'deployment:persona', order: 0, scope: 'global', start: 0, end: 8 },
      { name: 'listener:added', start: 10, end: 30 },
    ])
  })

  it('a complete section keeps its origin after the post-waterfall restoration', async () => {
    const { sp } = setup({ persona: 'Persona.' })
    sp.section({ name: 'whole', order: 3, text: 'Everything.', complete: true })
    expect(renderPromptSpans(await sp.assemble()).spans).toEqual([
      { name: 'whole', order: 3, scope: 'global', start: 0, end: 11 },
    ])
  })

  it('throws the same first error as renderPrompt', async () => {
    const { sp } = setup({ persona: 'Hi {{nobody}}.' })
    const assembly = await sp.assemble()
    expect(() => renderPromptSpans(assembly)).toThrow(
      /unknown prompt variable "\{\{nobody\}\}" in section "deployment:persona"/,
    )
  })

  it('property: the text equals renderPrompt, spans are ordered, disjoint, and joined by blank lines', async () => {
    const seed = 18_0701
    const section = fc.record({
      order: fc.integer({ min: -5, max: 5 }),
      text: fc.string({ maxLength: 12 }).filter((t) => !t.includes('{{')),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(section, { maxLength: 8 }), async (entries) => {
        const { sp } = setup({ includeHarnessIdentity: false })
        entries.forEach((entry, i) => sp.section({ name: `s${i}`, order: entry.order, text: entry.text }))
        const assembly = await sp.assemble()
        const { text, spans } = renderPromptSpans(assembly)
        expect(text).toBe(renderPrompt(assembly))
        let at = 0
        spans.forEach((span, i) => {
          expect(span.start).toBe(i === 0 ? 0 : at + 2)
          if (i > 0) expect(text.slice(at, span.start)).toBe('\n\n')
          expect(span.end).toBeGreaterThan(span.start)
          at = span.end
        })
        expect(at).toBe(text.length)
      }),
      // fast-check's failure message names the seed and the shrunk counterexample
      { seed, numRuns: 200 },
    )
  })
})
