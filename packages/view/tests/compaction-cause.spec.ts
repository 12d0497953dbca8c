import { describe, expect, it } from 'vitest'
import { describeMessageCause } from '../src/model/cause.js'

describe('the viewer names a compaction as the cause of its break', () => {
  it('with the messages it replaced and the tokens it saved, when usage was reported', () => {
    const compaction = {
      turn: 6,
      step: 1,
      reason: 'threshold' as const,
      replacedMessages: 11,
      inputTokensBefore: 1101,
      inputTokensAfter: 595,
      tokensSaved: 506,
      requestSeq: 80,
    }
    expect(describeMessageCause({ kind: 'replace', seq: 95, compaction }, 0)).toBe(
      'history compacted in turn 6 step 1 (threshold): 11 messages → 1 summary; input 1,101 → 595 tokens (506 saved) ' +
        '(checkpoint at seq 95, breaks the prefix at message 1)',
    )
  })

  it('a replace no compaction made, and a summary request, are named as such', () => {
    expect(describeMessageCause({ kind: 'replace', seq: 9 }, 2)).toBe(
      'history rewritten at message 3 by a surface replace (seq 9)',
    )
    expect(describeMessageCause({ kind: 'compaction-request', seq: 12 }, 4)).toBe(
      'summary request: the instruction follows the first 4 messages (expected)',
    )
  })
})
