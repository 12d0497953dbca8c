import type { SessionRecoveryReport } from '@bridle/session'
import type { Paint } from '../terminal.js'

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`

/**
 * The notice `bridle inspect` prints above a stored session whose tail is torn or damaged: which lines of which log a
 * load or resume will discard, how many complete lines and intact events that is, and the first defect. Worded from
 * the report's fields alone, so any persistence backend that fills `SessionInspection.recovery` is shown the same way.
 */
export function renderRecovery(report: SessionRecoveryReport, p: Paint): string {
  const lines =
    report.firstLine === report.lastLine ? `line ${report.firstLine}` : `lines ${report.firstLine}–${report.lastLine}`
  const parts: string[] = []
  if (report.defect !== undefined) {
    let part = `${count(report.droppedLines, 'complete line')} from damaged line ${report.defect.line} (${report.defect.reason})`
    if (report.droppedEvents > 0)
      part += `, ${report.droppedEvents} of them ${report.droppedEvents === 1 ? 'an intact event' : 'intact events'}`
    parts.push(part)
  }
  if (report.fragmentBytes > 0) parts.push(`an unterminated ${report.fragmentBytes}-byte line`)
  return (
    `${p.yellow('torn tail:')} ${lines} of ${report.location.path} past the committed log will be discarded when the ` +
    `session is loaded or resumed (${parts.join('; ')})\n` +
    `${p.dim('  shown below: the committed events, with the interrupted turn closed')}\n`
  )
}
