import { diffWordsWithSpace } from 'diff'
import type { ChangedSpan } from '../types.js'

export type { ChangedSpan }

export interface ChangedSpanOptions {
  /** Characters of unchanged text shown on each side, at most (default 40). */
  context?: number
  /** Characters of each side of the change shown, at most (default 200). */
  changed?: number
}

/** Characters that make up a word: a span never starts or ends between two of them. */
const WORD = /[\p{L}\p{N}_]/u
const isWord = (c: string | undefined) => c !== undefined && WORD.test(c)

/** How much of each text the word diff looks at past the first difference: enough for any change worth showing. */
const WINDOW = 1_500

/** The length of the prefix `a` and `b` share. */
function sharedPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/** `text` cut to at most `max` characters at a word boundary (the whole of it when shorter). */
function headOf(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false }
  let end = max
  while (end > 0 && isWord(text[end - 1]) && isWord(text[end])) end--
  return { text: text.slice(0, end === 0 ? max : end), cut: true }
}

/**
 * The changed span between `previous` and `current` around their first differing character, or `undefined` when
 * they are equal. The word diff starts at the start of the word holding that character, so the change is always
 * whole words; unchanged words on either side stay unchanged (never shown as removed), and whitespace between two
 * changed words joins them into one span.
 */
export function changedSpan(
  previous: string,
  current: string,
  options: ChangedSpanOptions = {},
): ChangedSpan | undefined {
  if (previous === current) return undefined
  const context = options.context ?? 40
  const changed = options.changed ?? 200
  const offset = sharedPrefix(previous, current)
  // back to the start of the word the first difference is in: the text before it is shared, so both agree
  let from = offset
  while (from > 0 && isWord(current[from - 1]) && (isWord(current[from]) || isWord(previous[from]))) from--

  const parts = diffWordsWithSpace(previous.slice(from, from + WINDOW), current.slice(from, from + WINDOW))
  let lead = ''
  let i = 0
  while (i < parts.length && !parts[i]!.added && !parts[i]!.removed) lead += parts[i++]!.value
  let removed = ''
  let added = ''
  let after = ''
  for (; i < parts.length; i++) {
    const part = parts[i]!
    if (part.removed) removed += part.value
    else if (part.added) added += part.value
    else {
      // whitespace alone between two changes belongs to the change; other unchanged text ends it
      const next = parts[i + 1]
      if (/^\s+$/.test(part.value) && next !== undefined && (next.added || next.removed)) {
        removed += part.value
        added += part.value
        continue
      }
      after = part.value
      break
    }
  }

  // the unchanged text before: from the line start when it is near, else from a word boundary
  const start = from + lead.length
  const lineStart = start === 0 ? 0 : current.lastIndexOf('\n', start - 1) + 1
  let begin = Math.max(lineStart, start - context)
  // inside the line, the context starts at the start of a word
  while (begin < start && begin > lineStart && !(isWord(current[begin]) && !isWord(current[begin - 1]))) begin++
  const shownRemoved = headOf(removed, changed)
  const shownAdded = headOf(added, changed)
  const cutAfter = headOf(after, context)
  // a cut context ends at its last word: no dangling line breaks before the ellipsis
  const shownAfter = cutAfter.cut ? { text: cutAfter.text.trimEnd(), cut: true } : cutAfter
  const end = start + added.length + after.length
  return {
    offset,
    before: current.slice(begin, start),
    removed: shownRemoved.text,
    added: shownAdded.text,
    after: shownAfter.text,
    cutBefore: begin > lineStart,
    cutAfter: shownRemoved.cut || shownAdded.cut || shownAfter.cut || end < current.length,
  }
}

/** The two sides of a changed span as plain text, `…` where text was left out: what a terminal line shows. */
export function changedSides(span: ChangedSpan): { previous: string; current: string } {
  const head = span.cutBefore ? '…' : ''
  const tail = span.cutAfter ? '…' : ''
  return {
    previous: `${head}${span.before}${span.removed}${span.after}${tail}`,
    current: `${head}${span.before}${span.added}${span.after}${tail}`,
  }
}
