import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { attributeSections } from '../src/inspect/sections.js'

describe('attributeSections', () => {
  it('names each paragraph from the known sections and leaves unknown ones unnamed', () => {
    const known = [
      { name: 'harness:identity', text: 'You are an AI agent powered by Bridle.' },
      { name: 'read-file:guidance', text: 'Use read_file.\n\nLine numbers are 1-based.' },
    ]
    const system =
      'You are an AI agent powered by Bridle.\n\nA persona that changed since.\n\nUse read_file.\n\nLine numbers are 1-based.'
    expect(attributeSections(system, known)).toEqual([
      { name: 'harness:identity', text: 'You are an AI agent powered by Bridle.' },
      { name: undefined, text: 'A persona that changed since.' },
      { name: 'read-file:guidance', text: 'Use read_file.\n\nLine numbers are 1-based.' },
    ])
  })

  it('rebuilds the system string exactly when joined back', () => {
    const text = fc
      .string({ minLength: 1 })
      .filter((s) => !s.includes('\n\n') && !s.startsWith('\n') && !s.endsWith('\n'))
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        (texts, pick) => {
          const known = pick.map((i) => ({ name: `s${i}`, text: texts[i % texts.length]! }))
          const system = texts.join('\n\n')
          expect(
            attributeSections(system, known)
              .map((s) => s.text)
              .join('\n\n'),
          ).toBe(system)
        },
      ),
    )
  })
})
