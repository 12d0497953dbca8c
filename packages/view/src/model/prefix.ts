import { commonPrefix, type PromptText } from './prompt-text.js'

/** Where the byte-identical prefix of the previous prompt ends in the current one. */
export interface PromptComparison {
  /** Characters of the current prompt that repeat the previous prompt's start. */
  keptChars: number
  /** Absent when the whole previous prompt is a prefix of the current one (the cache can hold). */
  broke?: {
    part: 'system' | 'tools' | 'messages'
    /** Message position, for a break in the messages. */
    index?: number
    /** Offset of the first differing character inside that part (inside that message). */
    offset: number
    /** The two texts the break is in: the part (or the message) as the previous and the current prompt have it. */
    previous: string
    current: string
  }
}

/**
 * Compares two prompts the way a provider's prefix cache does: system, then tools, then messages, stopping at the
 * first differing character. Messages equal as wholes are skipped without a scan (they are usually the very
 * same log object).
 */
export function comparePrompts(previous: PromptText, current: PromptText): PromptComparison {
  let kept = 0
  for (const part of ['system', 'tools'] as const) {
    const a = previous[part]
    const b = current[part]
    if (a !== b) {
      const offset = commonPrefix(a, b)
      return { keptChars: kept + offset, broke: { part, offset, previous: a, current: b } }
    }
    kept += b.length
  }
  const n = previous.messages.length
  for (let i = 0; i < n; i++) {
    const a = previous.messages[i]!
    const b = current.messages[i]
    if (a === b) {
      kept += a.length
      continue
    }
    const offset = b === undefined ? 0 : commonPrefix(a, b)
    return { keptChars: kept + offset, broke: { part: 'messages', index: i, offset, previous: a, current: b ?? '' } }
  }
  return { keptChars: kept }
}
