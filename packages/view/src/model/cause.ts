import type { AnySessionEvent, CachePrefixRow, MessageBreakCause, ReconstructedRequest } from '@bridle/session'
import { describeCompaction } from './compaction.js'
import { commonPrefix } from './prompt-text.js'
import { sectionAt, systemSpans } from './sections.js'

/** Section changes, when the cache report carries them (logs with section manifests). */
type SectionChanges = readonly { kind: string; name: string }[]

/** The sections `cachePrefixReport` says changed between two requests, if it says. */
export function reportedSectionChanges(row: CachePrefixRow): SectionChanges | undefined {
  const system = row.system as { kept: boolean; sections?: SectionChanges } | undefined
  return system?.kept === false ? system.sections : undefined
}

/** The section of `rebuilt`'s system string holding `offset`, from its header's manifest. */
export function sectionOfOffset(rebuilt: ReconstructedRequest, offset: number): string | undefined {
  return rebuilt.sections && sectionAt(systemSpans(rebuilt.header.system ?? '', rebuilt.sections), offset)
}

export function describeMessageCause(cause: MessageBreakCause, position: number): string {
  const at = `message ${position + 1}`
  switch (cause.kind) {
    case 'replace':
      if (cause.compaction)
        return `${describeCompaction(cause.compaction)} (checkpoint at seq ${cause.seq}, breaks the prefix at ${at})`
      return `history rewritten at ${at} by a surface replace (seq ${cause.seq})`
    case 'compaction-request':
      return `summary request: the instruction follows the first ${position} messages (expected)`
    case 'context-snapshot':
      return `runtime-context snapshot (seq ${cause.seq}) inserted before the tail at ${at}`
    default:
      return `${at} changed (event seq ${cause.seq ?? '?'})`
  }
}

/**
 * One line naming why a request did not keep the previous request's prompt as its prefix, from its
 * `cachePrefixReport` row; `undefined` when the prefix held (or for the first request). The section is named
 * from the report's section changes, else from the manifest span where the system string first differs.
 */
export function breakCause(
  _events: readonly AnySessionEvent[],
  row: CachePrefixRow,
  current?: ReconstructedRequest,
  previous?: ReconstructedRequest,
): string | undefined {
  if (row.error !== undefined) return row.previousSeq === undefined ? undefined : `cannot rebuild: ${row.error}`
  if (row.previousSeq === undefined) return undefined
  if (row.system?.kept === false) {
    const changes = reportedSectionChanges(row)
    if (changes && changes.length > 0) return `system: ${changes.map((c) => `section ${c.name} ${c.kind}`).join(', ')}`
    let section: string | undefined
    if (current && previous) {
      const offset = commonPrefix(previous.header.system ?? '', current.header.system ?? '')
      section = sectionOfOffset(current, offset) ?? sectionOfOffset(previous, offset)
    }
    return `system: ${section ? `section ${section} changed` : `changed`} at line ${row.system.firstDifferingLine}`
  }
  if (row.tools && !row.tools.kept) {
    const parts = [
      ...row.tools.added.map((n) => `${n} added`),
      ...row.tools.removed.map((n) => `${n} removed`),
      ...row.tools.moved.map((n) => `${n} moved`),
      ...row.tools.changed.map((n) => `${n} changed`),
    ]
    return `tools: ${parts.join(', ')}`
  }
  if (row.messages?.kept === false)
    return `messages: ${describeMessageCause(row.messages.cause, row.messages.firstDifferingPosition)}`
  return undefined
}
