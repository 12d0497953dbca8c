import { describeBreakpoint, describeCacheMiss, type CachePrefixRow } from '@bridle/session'
import { changedSides, changedSpan, describeCompaction } from '@bridle/view'
import { oneLine, type Paint } from '../terminal.js'

/** Names the section a line of a step's system string falls in, when it can. */
export type SectionOfLine = (row: CachePrefixRow, line: number) => string | undefined

const count = (n: number) => n.toLocaleString('en-US')

function describeMessagesBreak(m: Extract<NonNullable<CachePrefixRow['messages']>, { kept: false }>): string {
  const at = `at message ${m.firstDifferingPosition + 1}`
  switch (m.cause.kind) {
    case 'replace':
      if (m.cause.compaction)
        return `${at}: ${describeCompaction(m.cause.compaction)}, checkpoint at seq ${m.cause.seq}`
      return `${at}: history rewritten by a surface replace at seq ${m.cause.seq}`
    case 'compaction-request':
      return `${at}: the summary instruction follows the first ${m.firstDifferingPosition} messages (expected)`
    case 'context-snapshot':
      return `${at}: runtime-context snapshot inserted before the tail at seq ${m.cause.seq}`
    default:
      return `${at}: changed (event seq ${m.cause.seq ?? '?'})`
  }
}

type SystemBreak = Extract<NonNullable<CachePrefixRow['system']>, { kept: false }>

/**
 * Why the system prompt broke: from the section manifests, the sections added, removed, moved or changed (with the
 * first differing line when a section's text changed); from an old log without manifests, the first differing line
 * and the section it falls in, when known.
 */
function describeSystemBreak(
  row: CachePrefixRow,
  system: SystemBreak,
  sectionOfLine: SectionOfLine,
  redact: (text: string) => string,
): string {
  // the changed words themselves, on both sides (the viewer's break snippet is the same span); redacted before cut
  const span = changedSpan(redact(system.previousLine), redact(system.currentLine), { context: 30, changed: 80 })
  const sides = span ? changedSides(span) : { previous: system.previousLine, current: system.currentLine }
  const line = `line ${system.firstDifferingLine}: "${oneLine(sides.previous, 200)}" → "${oneLine(sides.current, 200)}"`
  if (system.sections !== undefined && system.sections.length > 0) {
    const changes = system.sections.map((c) => `${c.name} ${c.kind}`).join(', ')
    const changed = system.sections.some((c) => c.kind === 'changed')
    return `section${system.sections.length === 1 ? '' : 's'} ${changes}${changed ? ` (${line})` : ''}`
  }
  const section = sectionOfLine(row, system.firstDifferingLine)
  return `line ${system.firstDifferingLine}${section ? ` (section ${section})` : ''}: ${line.slice(line.indexOf(': ') + 2)}`
}

/**
 * The breakpoints a request carried (`request/cache`) and, under them, the read they predict beside what the
 * provider reported, with the reason for a miss; nothing for a request without a placement.
 */
function planLines(row: CachePrefixRow, p: Paint): string[] {
  const plan = row.cachePlan
  if (plan === undefined) return []
  const placed = plan.breakpoints.length === 0 ? 'none' : plan.breakpoints.map(describeBreakpoint).join(' · ')
  const reported =
    row.cachedInputTokens === undefined
      ? ''
      : ` · provider read ${count(row.cachedInputTokens)}${row.cacheWriteTokens === undefined ? '' : `, wrote ${count(row.cacheWriteTokens)}`}`
  const miss = plan.miss === undefined ? '' : ` · ${p.red('miss')}: ${describeCacheMiss(plan.miss)}`
  const left = (plan.skipped ?? []).map((s) => `${s.reason} (${s.detail})`).join('; ')
  return [
    `    breakpoints (${plan.policy}): ${placed}${left === '' ? '' : ` · left out: ${left}`}`,
    `    predicted read ~${count(plan.predictedReadTokens)} tokens${reported}${miss}`,
  ]
}

/**
 * Renders `cachePrefixReport` rows: per request, what held, what broke and why, and the cached tokens. `redact` is
 * applied to logged text before any of it is cut.
 */
export function renderCacheReport(
  rows: readonly CachePrefixRow[],
  p: Paint,
  sectionOfLine: SectionOfLine = () => undefined,
  redact: (text: string) => string = (text) => text,
): string {
  const lines = [
    `${p.bold('cache')} (per request: what of the previous request's prefix held; system → tools → messages)`,
  ]
  for (const row of rows) {
    const head = `  turn ${row.turn} step ${row.step}${row.attempt > 1 ? ` attempt ${row.attempt}` : ''}${row.purpose === 'compaction' ? ' (summary request)' : ''}`
    const input = row.inputTokens !== undefined ? ` · input ${count(row.inputTokens)} tokens` : ''
    const cached = `${input}${row.cachedInputTokens !== undefined ? ` · provider cached ${row.cachedInputTokens} input tokens` : ''}`
    if (row.error) {
      lines.push(`${head}: ${p.red(`cannot rebuild: ${row.error}`)}`)
      continue
    }
    if (row.previousSeq === undefined) {
      lines.push(`${head}: first request${cached}`, ...planLines(row, p))
      continue
    }
    const parts: string[] = []
    if (row.system?.kept === false)
      parts.push(`system ${p.red('✗')} ${describeSystemBreak(row, row.system, sectionOfLine, redact)}`)
    else parts.push(`system ${p.green('✓')}`)
    if (row.tools && !row.tools.kept) {
      const diff = [
        ...row.tools.added.map((n) => `+${n}`),
        ...row.tools.removed.map((n) => `-${n}`),
        ...row.tools.moved.map((n) => `~${n}`),
        ...row.tools.changed.map((n) => `${n} changed`),
      ]
      parts.push(`tools ${p.red('✗')} ${diff.join(' ')}`)
    } else parts.push(`tools ${p.green('✓')}`)
    if (row.messages?.kept === false) parts.push(`messages ${p.red('✗')} ${describeMessagesBreak(row.messages)}`)
    else parts.push(`messages ${p.green('✓')}`)
    const kept = row.prefixKept
      ? ` · prefix kept: ${row.prefixKept.messages} messages, ~${row.prefixKept.chars} chars`
      : ''
    lines.push(`${head}: ${parts.join(' · ')}${kept}${cached}`, ...planLines(row, p))
  }
  return lines.join('\n') + '\n'
}
