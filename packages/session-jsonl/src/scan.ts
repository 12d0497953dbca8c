import type { StoredEvent } from './line-format.js'
import { parseJsonBytes } from './header.js'

/** A defect inside the committed region (persistence.md §9.3); the reader wraps it as a corruption error. */
export class CommittedDamage extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message)
    this.name = 'CommittedDamage'
  }
}

/** The result of scanning the event lines: the accepted prefix and where it ends on disk. */
export interface ScanResult {
  /** Events of the accepted prefix, seqs contiguous from 0. */
  readonly events: StoredEvent[]
  /** Byte offset just past the last accepted line (or past the header when none was accepted). */
  readonly committedBytes: number
}

/**
 * Applies the committed-region rule to the bytes after the header. Complete lines (ending in `\n`) are parsed in
 * order; the fragment after the last `\n` is always torn tail. The first defect (unparsable line or seq gap) ends
 * the accepted prefix. If that defect or any later complete line decodes as `turn/end`, the defect lies inside the
 * committed region and `CommittedDamage` is thrown; otherwise the defect and everything after it is torn tail.
 * Only JSON syntax and seq order are checked here.
 */
export function scanEvents(bytes: Uint8Array, headerEnd: number): ScanResult {
  const events: StoredEvent[] = []
  let committedBytes = headerEnd
  let defect: CommittedDamage | undefined
  let start = headerEnd
  let line = 2
  for (;;) {
    const newline = bytes.indexOf(0x0a, start)
    if (newline < 0) break
    const parsed = newline === start ? { ok: false as const } : parseJsonBytes(bytes.subarray(start, newline))
    if (defect === undefined) {
      if (!parsed.ok) {
        defect = new CommittedDamage(`corrupt session log: unparsable committed event at line ${line}`, line)
      } else {
        const value = parsed.value
        const seq = isObject(value) ? value.seq : undefined
        if (seq !== events.length) {
          defect = new CommittedDamage(
            `corrupt session log: seq gap in committed region at line ${line} (expected ${events.length}, got ${String(seq)})`,
            line,
          )
          if (isTurnEnd(value)) throw defect
        } else {
          events.push(value as unknown as StoredEvent)
          committedBytes = newline + 1
        }
      }
    } else if (parsed.ok && isTurnEnd(parsed.value)) {
      throw defect
    }
    start = newline + 1
    line++
  }
  return { events, committedBytes }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isTurnEnd(value: unknown): boolean {
  return isObject(value) && value.type === 'turn/end'
}
