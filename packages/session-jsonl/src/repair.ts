import type { SessionInspection } from '@bridle/session'
import { repairFile } from './file-writer.js'
import type { FsLayer } from './fs-layer.js'
import { encodeEvents } from './line-format.js'
import { currentRevision } from './read-stable.js'
import type { LogReader } from './reader.js'

/**
 * Commits crash recovery for a stored session (persistence.md §10); call it on the id chain. Reads, scans and
 * validates the log; if it has a torn tail or an open turn, re-stats the file and — only if its revision is still
 * the scanned one (otherwise it reads again) — truncates to `committedBytes`, fsyncs, appends the closers and fsyncs.
 * Returns the re-read, balanced, frozen view. Bytes before `committedBytes` are never rewritten, and a log that is
 * already balanced is not touched, so a second call changes nothing.
 */
export async function commitRepair(fs: FsLayer, root: string, reader: LogReader, id: string, path: string): Promise<SessionInspection> {
  for (;;) {
    const stored = await reader.read(id, path)
    const balanced = reader.validate(stored)
    if (stored.committedBytes === stored.size && balanced.closers.length === 0) {
      return Object.freeze({ meta: balanced.meta, events: balanced.events })
    }
    if ((await currentRevision(fs, root, path)) !== stored.revision) continue
    await repairFile(fs, path, stored.committedBytes, encodeEvents(balanced.closers))
    const repaired = reader.validate(await reader.read(id, path))
    return Object.freeze({ meta: repaired.meta, events: repaired.events })
  }
}
