import type { SessionRecoveryReport } from '@bridle/session'
import type { StoredLog } from './stored-log.js'

/**
 * What a read leaves out past the committed prefix of `stored`, or `undefined` when the file ends there. The first
 * discarded line follows the accepted events (line 1 is the header); the last is the fragment's line when the file
 * ends without a newline.
 */
export function recoveryOf(stored: StoredLog): SessionRecoveryReport | undefined {
  if (stored.committedBytes === stored.size) return undefined
  const { completeLines, completeBytes, defect, intactAfterDefect } = stored.scan
  const fragmentBytes = stored.size - completeBytes
  const report: SessionRecoveryReport = {
    location: Object.freeze({ kind: 'jsonl', path: stored.path }),
    firstLine: stored.events.length + 2,
    lastLine: completeLines + 1 + (fragmentBytes > 0 ? 1 : 0),
    droppedLines: completeLines - stored.events.length,
    droppedEvents: intactAfterDefect,
    fragmentBytes,
    ...(defect === undefined ? {} : { defect: Object.freeze({ line: defect.line, reason: defect.reason }) }),
  }
  return Object.freeze(report)
}

/**
 * The warning a committed repair logs: the file, the discarded lines, how many there were, and why, e.g.
 * `session-jsonl: session "s1": discarded lines 14–20 of "/root/s1.jsonl" (6 complete lines, starting at damaged
 * line 14 (checksum mismatch), of which 5 were intact events; a 37-byte unterminated line)`.
 */
export function recoveryWarning(id: string, report: SessionRecoveryReport): string {
  const { firstLine, lastLine } = report
  const lines = firstLine === lastLine ? `line ${firstLine}` : `lines ${firstLine}–${lastLine}`
  return `session-jsonl: session "${id}": discarded ${lines} of "${report.location.path}" (${describeLoss(report)})`
}

/** The parenthesized part of {@link recoveryWarning}; the CLI words its own summary from the report fields. */
function describeLoss(report: SessionRecoveryReport): string {
  const parts: string[] = []
  if (report.defect !== undefined) {
    const { droppedLines, droppedEvents, defect } = report
    let part = `${plural(droppedLines, 'complete line')}, starting at damaged line ${defect.line} (${defect.reason})`
    if (droppedEvents > 0)
      part += `, of which ${droppedEvents === 1 ? '1 was an intact event' : `${droppedEvents} were intact events`}`
    parts.push(part)
  }
  if (report.fragmentBytes > 0) parts.push(`a ${report.fragmentBytes}-byte unterminated line`)
  return parts.join('; ')
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
