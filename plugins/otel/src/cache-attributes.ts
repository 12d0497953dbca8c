/**
 * The `bridle.cache.*` attributes of a model request: its row of the session's cache-prefix report
 * (`cachePrefixReport` in `@bridle/session`, docs/provability.md#the-cache-prefix-report) as attributes — what of the
 * previous request's prefix held (system → tools → messages, the order providers cache it), how much, and why the
 * rest broke.
 */
import type { CachePrefixRow, CompactionBreak } from '@bridle/session'
import { BRIDLE } from './semconv.js'
import type { Attributes } from './records.js'

type MessagesBreak = Extract<NonNullable<CachePrefixRow['messages']>, { kept: false }>

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

function compactionClause(c: CompactionBreak): string {
  const what = `compaction in turn ${c.turn} step ${c.step} (${c.reason}) replaced ${plural(c.replacedMessages, 'message')}`
  return c.tokensSaved === undefined ? what : `${what}, saving ${c.tokensSaved} input tokens`
}

function messagesClause(m: MessagesBreak): string {
  const at = `messages from ${m.firstDifferingPosition + 1}`
  switch (m.cause.kind) {
    case 'replace':
      return m.cause.compaction
        ? `${at}: ${compactionClause(m.cause.compaction)}`
        : `${at}: history rewritten by a surface replace at seq ${m.cause.seq}`
    case 'compaction-request':
      return `${at}: summary request instruction (request/compaction at seq ${m.cause.seq})`
    case 'context-snapshot':
      return `${at}: runtime-context snapshot at seq ${m.cause.seq}`
    default:
      return `${at}: changed (event seq ${m.cause.seq ?? 'unknown'})`
  }
}

function systemClause(system: Extract<NonNullable<CachePrefixRow['system']>, { kept: false }>): string {
  if (system.sections !== undefined && system.sections.length > 0)
    return `system: ${system.sections.map((c) => `section ${c.name} ${c.kind}`).join(', ')}`
  return `system: line ${system.firstDifferingLine} changed`
}

function toolsClause(tools: NonNullable<CachePrefixRow['tools']>): string {
  const diff = [
    ...tools.added.map((n) => `+${n}`),
    ...tools.removed.map((n) => `-${n}`),
    ...tools.moved.map((n) => `~${n}`),
    ...tools.changed.map((n) => `*${n}`),
  ]
  return `tools: ${diff.join(' ')}`
}

/**
 * The attributes of one cache-report row: `bridle.cache.break` names the first part that broke (`none` when the whole
 * previous request is a prefix of this one), `bridle.cache.broken` every part that broke and `bridle.cache.break_reason`
 * why, beside the prefix kept. A request with nothing to compare with (the session's first) has none; a request the
 * log cannot rebuild has only `bridle.request.rebuild_error`.
 */
export function cacheAttributes(row: CachePrefixRow): Attributes {
  if (row.error !== undefined) return { [BRIDLE.requestRebuildError]: row.error }
  if (row.previousSeq === undefined) return {}
  const attributes: Attributes = {}
  const broken: string[] = []
  const reasons: string[] = []
  if (row.system?.kept === false) {
    broken.push('system')
    reasons.push(systemClause(row.system))
    if (row.system.sections !== undefined)
      attributes[BRIDLE.cacheSectionsChanged] = row.system.sections.map((c) => `${c.name} ${c.kind}`)
  }
  if (row.tools !== undefined && !row.tools.kept) {
    broken.push('tools')
    reasons.push(toolsClause(row.tools))
  }
  if (row.messages?.kept === false) {
    broken.push('messages')
    reasons.push(messagesClause(row.messages))
    const saved = row.messages.cause.kind === 'replace' ? row.messages.cause.compaction?.tokensSaved : undefined
    if (saved !== undefined) attributes[BRIDLE.cacheTokensSaved] = saved
  }
  attributes[BRIDLE.cacheBreak] = broken[0] ?? 'none'
  if (broken.length > 0) {
    attributes[BRIDLE.cacheBroken] = broken
    attributes[BRIDLE.cacheBreakReason] = reasons.join('; ')
  }
  if (row.prefixKept !== undefined) {
    attributes[BRIDLE.cachePrefixMessages] = row.prefixKept.messages
    attributes[BRIDLE.cachePrefixChars] = row.prefixKept.chars
  }
  return attributes
}
