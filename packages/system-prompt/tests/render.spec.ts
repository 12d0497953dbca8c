import { describe, expect, it } from 'vitest'
import {
  RUNTIME_CONTEXT_HEADER,
  joinContextSections,
  renderContextSections,
  renderContextSnapshot,
  renderPrompt,
} from '../src/index.js'

describe('renderPrompt', () => {
  it('interpolates, drops empty texts, keeps whitespace-only ones, joins with a blank line', () => {
    const out = renderPrompt({
      sections: [
        { name: 'a', text: 'Hello {{who}}.' },
        { name: 'empty', text: '' },
        { name: 'ws', text: '  ' },
        { name: 'b', text: 'End' },
      ],
      variables: { who: 'world' },
    })
    expect(out).toBe('Hello world.\n\n  \n\nEnd')
  })

  it('drops a section whose text becomes empty after interpolation', () => {
    expect(
      renderPrompt({
        sections: [
          { name: 'a', text: '{{v}}' },
          { name: 'b', text: 'B' },
        ],
        variables: { v: '' },
      }),
    ).toBe('B')
  })

  it("returns '' when nothing remains", () => {
    expect(renderPrompt({ sections: [], variables: {} })).toBe('')
    expect(renderPrompt({ sections: [{ name: 'p', text: '' }], variables: {} })).toBe('')
  })

  it('interpolates every section first: the first error in section order propagates, even after an empty one', () => {
    expect(() =>
      renderPrompt({
        sections: [
          { name: 'first', text: '{{missing}}' },
          { name: 'second', text: '{{Bad}}' },
        ],
        variables: {},
      }),
    ).toThrow('unknown prompt variable "{{missing}}" in section "first"; registered variables: (none)')
  })

  it('does not mutate its input', () => {
    const assembly = { sections: [{ name: 'a', text: '{{v}}' }], variables: { v: 'x' } }
    renderPrompt(assembly)
    expect(assembly).toEqual({ sections: [{ name: 'a', text: '{{v}}' }], variables: { v: 'x' } })
  })
})

describe('renderContextSections', () => {
  it('maps contexts in order with kind "context" and drops empty texts', () => {
    expect(
      renderContextSections({
        contexts: [
          { name: 'cwd', text: 'cwd: {{cwd}}' },
          { name: 'none', text: '' },
          { name: 'git', text: 'git: clean' },
        ],
        variables: { cwd: '/w' },
      }),
    ).toEqual([
      { name: 'cwd', text: 'cwd: /w' },
      { name: 'git', text: 'git: clean' },
    ])
  })

  it('reports errors with kind context', () => {
    expect(() =>
      renderContextSections({ contexts: [{ name: 'env', text: '{{x}}' }], variables: { x: undefined } }),
    ).toThrow('prompt variable "{{x}}" has no value for this assembly (context "env")')
  })
})

describe('joinContextSections / renderContextSnapshot', () => {
  it('joins under the header (spec example 8)', () => {
    expect(joinContextSections([{ text: 'cwd: /w' }, { text: 'git: clean' }])).toBe(
      `${RUNTIME_CONTEXT_HEADER}\n\ncwd: /w\n\ngit: clean`,
    )
  })

  it('does no filtering: two empty texts give the header followed by four newlines', () => {
    expect(joinContextSections([{ text: '' }, { text: '' }])).toBe(`${RUNTIME_CONTEXT_HEADER}\n\n\n\n`)
  })

  it("an empty body gives ''", () => {
    expect(joinContextSections([])).toBe('')
    expect(joinContextSections([{ text: '' }])).toBe('')
  })

  it('renderContextSnapshot drops empty texts first', () => {
    expect(
      renderContextSnapshot({
        contexts: [
          { name: 'a', text: '' },
          { name: 'b', text: '' },
        ],
        variables: {},
      }),
    ).toBe('')
    expect(renderContextSnapshot({ contexts: [{ name: 'a', text: 'A {{v}}' }], variables: { v: '1' } })).toBe(
      `${RUNTIME_CONTEXT_HEADER}\n\nA 1`,
    )
  })

  it('has the exact header text', () => {
    expect(RUNTIME_CONTEXT_HEADER).toBe(
      'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.',
    )
  })
})
