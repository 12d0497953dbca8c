import type { Session, SessionInspection } from '@bridle/session'
import { repairFile } from './file-writer.js'
import type { FsLayer } from './fs-layer.js'
import { encodeAppend } from './line-format.js'
import { currentRevision } from './read-stable.js'
import type { LogReader, SessionBuilder } from './reader.js'
import { recoveryWarning } from './recovery.js'

/** A repaired stored log: the balanced view, and the running CRC at the file's end (`undefined` without checksums). */
export interface RepairedLog {
  readonly view: SessionInspection
  readonly running: number | undefined
  /** The session the view's events were validated with (built by the `build` passed in); absent for a live session. */
  readonly session?: Session
}

/**
 * Commits crash recovery for a stored session (docs/persistence.md#repair-and-recovery-reports); call it on the id
 * chain. Reads, scans and validates the log; if it has a torn tail or an open turn, re-stats the file and — only if its
 * revision is still the scanned one (otherwise it reads again) — truncates to `committedBytes`, fsyncs, appends the
 * closers (sealed when the log is) and fsyncs. When bytes were discarded, `warn` gets a line naming the file, the lines
 * and their count, and the view carries the same `recovery` report. Returns the re-read, balanced, frozen view. Bytes
 * before `committedBytes` are never rewritten, and a log that is already balanced is not touched, so a second call
 * changes nothing.
 */
export async function commitRepair(
  fs: FsLayer,
  root: string,
  reader: LogReader,
  id: string,
  path: string,
  warn: (message: string) => void,
  build?: SessionBuilder,
): Promise<RepairedLog> {
  for (;;) {
    const stored = await reader.read(id, path)
    const balanced = reader.validate(stored, build)
    if (stored.committedBytes === stored.size && balanced.closers.length === 0) {
      return {
        view: Object.freeze({ meta: balanced.meta, events: balanced.events }),
        running: stored.running,
        session: balanced.session,
      }
    }
    if ((await currentRevision(fs, root, path)) !== stored.revision) continue
    await repairFile(fs, path, stored.committedBytes, encodeAppend(balanced.closers, stored.running).bytes)
    const { recovery } = balanced
    if (recovery !== undefined) warn(recoveryWarning(id, recovery))
    const again = await reader.read(id, path)
    const repaired = reader.validate(again, build)
    const view = { meta: repaired.meta, events: repaired.events, ...(recovery === undefined ? {} : { recovery }) }
    return { view: Object.freeze(view), running: again.running, session: repaired.session }
  }
}
