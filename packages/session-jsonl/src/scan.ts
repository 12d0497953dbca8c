import { Buffer } from 'node:buffer'
import { isRecord } from '@bridle/llm'
import { crc32, runningAt, sealFollows, sealHolds, storedSeal, type Seal } from './checksum.js'
import { HEADER_CHECKSUM_MISMATCH } from './header.js'
import type { StoredEvent } from './line-format.js'
import { decodeStrict, eachLineOfBytes, eachLineOfText, UNPARSABLE } from './line-reader.js'

/**
 * A defect inside the committed region (docs/persistence.md#the-committed-region); the reader wraps it as a corruption
 * error.
 */
export class CommittedDamage extends Error {
  constructor(
    message: string,
    readonly line: number,
    /** What is wrong with the line, without the location (for a recovery report). */
    readonly reason = message,
  ) {
    super(message)
    this.name = 'CommittedDamage'
  }
}

/** The result of scanning the event lines: the accepted prefix, where it ends on disk, and what lies past it. */
export interface ScanResult {
  /** Events of the accepted prefix, seqs contiguous from 0. */
  readonly events: StoredEvent[]
  /** Byte offset just past the last accepted line (or past the header when none was accepted). */
  readonly committedBytes: number
  /** Complete event lines in the file (accepted or not). */
  readonly completeLines: number
  /** Byte offset just past the last complete line (or past the header): the rest is an unterminated fragment. */
  readonly completeBytes: number
  /** The first defect among the complete lines, when it lies in the discarded tail. */
  readonly defect?: CommittedDamage
  /** Complete lines after that defect that still held an intact event (they are discarded with it). */
  readonly intactAfterDefect: number
  /** For a sealed log: the running CRC at `committedBytes`, from which appended lines continue the chain. */
  readonly running?: number
}

/**
 * Applies the committed-region rule to the bytes after the header. Complete lines (ending in `\n`) are parsed in
 * order; the fragment after the last `\n` is always torn tail. The first defect (a line that fails its checksum,
 * an unparsable line, a seq gap) ends the accepted prefix. If that defect or any later complete line decodes as
 * `turn/end`, the defect lies inside the committed region and `CommittedDamage` is thrown; otherwise the defect and
 * everything after it is torn tail. Only checksums, JSON syntax and seq order are checked here.
 *
 * `seal` is the header's checksum when the log is sealed: then every event line must carry a checksum that
 * continues the chain (see checksum.ts), and its `crc` field is removed from the event. A log without `seal` was
 * written before checksums and is read as before; a checksummed line in it means its header lost its seal.
 */
export function scanEvents(bytes: Uint8Array, headerEnd: number, seal?: Seal): ScanResult {
  const lastNewline = bytes.lastIndexOf(0x0a)
  const text = lastNewline < headerEnd ? '' : decodeStrict(bytes.subarray(headerEnd, lastNewline + 1))
  // Sealed: one CRC over everything up to the last line's digits proves every complete line intact (the usual
  // case); only when it fails is each line checked against its predecessor's value to find the damage.
  const lastSeal = seal === undefined || lastNewline < headerEnd ? undefined : storedSeal(bytes, headerEnd, lastNewline)
  const checkLine =
    seal === undefined
      ? legacyLineCheck(bytes)
      : lastSeal !== undefined && sealHolds(bytes, lastSeal)
        ? undefined
        : chainWalk(bytes, seal)
  const events: StoredEvent[] = []
  let committedBytes = headerEnd
  let defect: CommittedDamage | undefined
  let intactAfterDefect = 0
  let line = 2
  const onLine = (value: unknown, start: number, end: number): void => {
    const intact = checkLine === undefined || checkLine(start, end - 1)
    if (defect === undefined) {
      if (!intact) {
        defect = new CommittedDamage(
          `corrupt session log: checksum mismatch in committed event at line ${line}`,
          line,
          'checksum mismatch',
        )
        if (closesTurn(value, intact, bytes, start, end)) throw defect
      } else if (value === UNPARSABLE) {
        defect = new CommittedDamage(
          `corrupt session log: unparsable committed event at line ${line}`,
          line,
          'unparsable line',
        )
      } else {
        const seq = isRecord(value) ? value.seq : undefined
        if (seq !== events.length) {
          const gap = `expected ${events.length}, got ${String(seq)}`
          defect = new CommittedDamage(
            `corrupt session log: seq gap in committed region at line ${line} (${gap})`,
            line,
            `seq gap (${gap})`,
          )
          if (closesTurn(value, intact, bytes, start, end)) throw defect
        } else {
          events.push(value as unknown as StoredEvent)
          committedBytes = end
        }
      }
    } else {
      if (closesTurn(value, intact, bytes, start, end)) throw defect
      if (intact && value !== UNPARSABLE) intactAfterDefect++
    }
    line++
  }
  if (text === undefined) eachLineOfBytes(bytes, headerEnd, seal !== undefined, onLine)
  else eachLineOfText(bytes, headerEnd, text, seal !== undefined, onLine)
  const completeLines = line - 2
  let running: number | undefined
  if (seal !== undefined) {
    // Continue from the last accepted line's seal (intact, so well-formed) rather than re-reading the whole file.
    const last = events.length === 0 ? seal : storedSeal(bytes, headerEnd, committedBytes - 1)
    running = last === undefined ? crc32(bytes.subarray(0, committedBytes)) : runningAt(bytes, last, committedBytes)
  }
  const completeBytes = lastNewline < headerEnd ? headerEnd : lastNewline + 1
  return { events, committedBytes, completeLines, completeBytes, defect, intactAfterDefect, running }
}

/** Checks one complete line: its bytes run from `start` to its `\n` at `newline`. */
type LineCheck = (start: number, newline: number) => boolean

/**
 * The per-line check of a sealed log whose whole-file check failed: a line is intact when its seal continues the
 * chain from the value its predecessor stores. A damaged line's stored value still seeds the next check, so damage
 * in one line's content does not condemn the lines after it; a line without a readable seal leaves the next line
 * nothing to continue from.
 */
function chainWalk(bytes: Uint8Array, headerSeal: Seal): LineCheck {
  let previous: Seal | undefined = headerSeal
  return (start, newline) => {
    const seal = storedSeal(bytes, start, newline)
    const intact = seal !== undefined && previous !== undefined && sealFollows(bytes, previous, seal)
    previous = seal
    return intact
  }
}

/**
 * Whether a complete line closes a turn, so that a defect at or before it lies inside the committed region. A
 * damaged line (only sealed logs have those) counts when it still holds a whole turn/end record: it parses as one,
 * or a damaged newline merged it onto the line before.
 */
function closesTurn(value: unknown, intact: boolean, bytes: Uint8Array, start: number, end: number): boolean {
  return isTurnEnd(value) || (!intact && value === UNPARSABLE && holdsTurnEnd(bytes, start, end - 1))
}

const turnEndStart = Buffer.from('{"type":"turn/end"')

/** True when a damaged sealed line ends in a whole `turn/end` record (every sealed line starts with `{"type":`). */
function holdsTurnEnd(bytes: Uint8Array, start: number, newline: number): boolean {
  const line = Buffer.from(bytes.buffer, bytes.byteOffset + start, newline - start)
  const at = line.lastIndexOf(turnEndStart)
  if (at < 0) return false
  try {
    return isTurnEnd(JSON.parse(line.toString('utf8', at)))
  } catch {
    return false
  }
}

/** A log without a header seal must not hold sealed lines: they mean the header's seal was damaged. */
function legacyLineCheck(bytes: Uint8Array): LineCheck {
  return (start, newline) => {
    if (storedSeal(bytes, start, newline) !== undefined) throw new CommittedDamage(HEADER_CHECKSUM_MISMATCH, 1)
    return true
  }
}

function isTurnEnd(value: unknown): boolean {
  return isRecord(value) && value.type === 'turn/end'
}
