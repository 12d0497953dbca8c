/** What a read of one log file found (docs/persistence.md#the-committed-region). */
import type { StoredEvent, StoredMeta } from './line-format.js'
import type { ScanResult } from './scan.js'

/** The scanned state of one log file at one revision. */
export interface StoredLog {
  readonly path: string
  readonly meta: StoredMeta
  /** The accepted prefix (seqs contiguous from 0), before closers. */
  readonly events: StoredEvent[]
  readonly committedBytes: number
  /** File size at the read revision; a torn tail exists exactly when `committedBytes < size`. */
  readonly size: number
  readonly revision: string
  /** What lies past `committedBytes`: the scan's line counts and first defect. */
  readonly scan: Pick<ScanResult, 'completeLines' | 'completeBytes' | 'defect' | 'intactAfterDefect'>
  /** The running CRC at `committedBytes` for a sealed log; `undefined` for a log written before checksums. */
  readonly running: number | undefined
}
