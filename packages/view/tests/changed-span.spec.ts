import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { changedSides, changedSpan } from '../src/index.js'

const WORD = /[\p{L}\p{N}_]/u
const isWord = (c: string | undefined) => c !== undefined && WORD.test(c)

describe('changedSpan: the word diff around the first differing character', () => {
  it('shows an appended sentence as added, and the unchanged heading after it as unchanged', () => {
    const previous = 'Answer in one sentence.\n\nWorkspace and paths:\n- Paths you see'
    const current = 'Answer in one sentence. Be brief.\n\nWorkspace and paths:\n- Paths you see'
    expect(changedSpan(previous, current)).toEqual({
      offset: 23,
      before: 'Answer in one sentence.',
      removed: '',
      added: ' Be brief.',
      after: '\n\nWorkspace and paths:\n- Paths you see',
      cutBefore: false,
      cutAfter: false,
    })
  })

  it('starts the change at the start of the word that differs, and joins words changed in a row', () => {
    expect(changedSpan('Answer in one sentence.', 'Answer in one sentences.')).toMatchObject({
      before: 'Answer in one ',
      removed: 'sentence',
      added: 'sentences',
      after: '.',
    })
    expect(changedSpan('keep the old red car here', 'keep the new blue car here')).toMatchObject({
      removed: 'old red',
      added: 'new blue',
      after: ' car here',
    })
  })

  it('starts the context at a word boundary, never inside a word, and marks what it left out', () => {
    const previous = `${'lorem ipsum dolor '.repeat(6)}sit amet`
    const current = `${'lorem ipsum dolor '.repeat(6)}sat amet`
    const span = changedSpan(previous, current, { context: 20 })!
    expect(span.cutBefore).toBe(true)
    expect(span.before).toBe('lorem ipsum dolor ')
    expect(changedSides(span)).toEqual({
      previous: '…lorem ipsum dolor sit amet',
      current: '…lorem ipsum dolor sat amet',
    })
  })

  it('holds for any two texts: both sides are the texts themselves, the first difference is inside the change, no cut inside a word', () => {
    const words = fc.constantFrom('a', 'be', 'sentence', 'Workspace', 'paths:', '.', ' ', ' ', '\n', 'brief', 'é')
    const text = fc.array(words, { maxLength: 30 }).map((w) => w.join(''))
    fc.assert(
      fc.property(text, text, text, (shared, a, b) => {
        const previous = shared + a
        const current = shared + b
        const span = changedSpan(previous, current, { context: 12, changed: 1_000 })
        if (previous === current) {
          expect(span).toBeUndefined()
          return
        }
        const s = span!
        expect(s.removed).not.toBe(s.added)
        const start = current.lastIndexOf(s.before + s.added + s.after, s.offset)
        expect(start).toBeGreaterThanOrEqual(0)
        // the same window of each text: the shared start, then each side's change, then the shared rest
        expect(current.slice(start, start + s.before.length)).toBe(s.before)
        expect(previous.slice(start, start + s.before.length + s.removed.length)).toBe(s.before + s.removed)
        expect(current.slice(start, start + s.before.length + s.added.length)).toBe(s.before + s.added)
        expect(previous.slice(start + s.before.length + s.removed.length).startsWith(s.after)).toBe(true)
        expect(current.slice(start + s.before.length + s.added.length).startsWith(s.after)).toBe(true)
        // the first difference is inside the change, which begins at a word boundary
        const changeStart = start + s.before.length
        expect(changeStart).toBeLessThanOrEqual(s.offset)
        expect(isWord(current[changeStart - 1]) && isWord(current[changeStart])).toBe(false)
        const lineStart = current.lastIndexOf('\n', start - 1) + 1
        if (start > 0 && start !== lineStart && start !== changeStart)
          expect(isWord(current[start]) && !isWord(current[start - 1]), 'the context starts at a word start').toBe(true)
        expect(s.cutBefore).toBe(start > (start === 0 ? 0 : current.lastIndexOf('\n', start - 1) + 1))
      }),
      { numRuns: 500 },
    )
  })
})
