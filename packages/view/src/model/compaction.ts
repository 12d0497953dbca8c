import type { CompactionBreak } from '@bridle/session'

const count = (n: number) => n.toLocaleString('en-US')

/** What a compaction did, in one clause: the messages it replaced and the input tokens it saved. */
export function describeCompaction(c: CompactionBreak): string {
  const what = `history compacted in turn ${c.turn} step ${c.step} (${c.reason}): ${c.replacedMessages} message${c.replacedMessages === 1 ? '' : 's'} → 1 summary`
  if (c.inputTokensBefore === undefined || c.inputTokensAfter === undefined) return what
  return `${what}; input ${count(c.inputTokensBefore)} → ${count(c.inputTokensAfter)} tokens (${count(c.tokensSaved ?? 0)} saved)`
}
