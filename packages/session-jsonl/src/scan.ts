import { Buffer, isUtf8 } from 'node:buffer'
import type { StoredEvent } from './line-format.js'

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
  const lastNewline = bytes.lastIndexOf(0x0a)
  const text = lastNewline < headerEnd ? '' : decodeStrict(bytes.subarray(headerEnd, lastNewline + 1))
  const events: StoredEvent[] = []
  let committedBytes = headerEnd
  let defect: CommittedDamage | undefined
  let line = 2
  const onLine = (value: unknown, end: number): void => {
    if (defect === undefined) {
      if (value === UNPARSABLE) {
        defect = new CommittedDamage(`corrupt session log: unparsable committed event at line ${line}`, line)
      } else {
        const seq = isObject(value) ? value.seq : undefined
        if (seq !== events.length) {
          defect = new CommittedDamage(
            `corrupt session log: seq gap in committed region at line ${line} (expected ${events.length}, got ${String(seq)})`,
            line,
          )
          if (isTurnEnd(value)) throw defect
        } else {
          events.push(value as unknown as StoredEvent)
          committedBytes = end
        }
      }
    } else if (value !== UNPARSABLE && isTurnEnd(value)) {
      throw defect
    }
    line++
  }
  if (text === undefined) eachLineOfBytes(bytes, headerEnd, onLine)
  else eachLineOfText(bytes, headerEnd, text, onLine)
  return { events, committedBytes }
}

/** The value a complete line stands for when it is not valid JSON (an empty line included). */
const UNPARSABLE: unique symbol = Symbol('unparsable line')

/** Called for each complete line, in order, with its parsed value (or `UNPARSABLE`) and the byte offset past its `\n`. */
type LineVisitor = (value: unknown, end: number) => void

/**
 * Strict UTF-8 decoding with the result of `new TextDecoder('utf-8', {fatal: true}).decode(bytes)`: `undefined` for
 * invalid UTF-8, else the text minus a leading BOM. Decodes with `Buffer#toString`, which replaces every malformed
 * sequence with U+FFFD, so a text without U+FFFD proves the bytes valid; only a text containing one is checked with
 * `isUtf8`. Together a fraction of the fatal `TextDecoder` (that decode cost as much as parsing every line).
 */
export function decodeStrict(bytes: Uint8Array): string | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  if (text.includes('\ufffd') && !isUtf8(bytes)) return undefined
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

function parseText(text: string): unknown {
  if (text.length === 0) return UNPARSABLE
  try {
    return JSON.parse(text)
  } catch {
    return UNPARSABLE
  }
}

/**
 * Fast path: the complete lines were decoded in one go; walk `\n` in the text and in the bytes in lockstep. A plain
 * loop with a visitor (no generator, no per-line result objects): this runs once per stored event on every reload.
 */
function eachLineOfText(bytes: Uint8Array, headerEnd: number, text: string, visit: LineVisitor): void {
  let charStart = 0
  let byteStart = headerEnd
  for (;;) {
    const charEnd = text.indexOf('\n', charStart)
    if (charEnd < 0) return
    const byteEnd = bytes.indexOf(0x0a, byteStart)
    visit(parseText(text.slice(charStart, charEnd)), byteEnd + 1)
    charStart = charEnd + 1
    byteStart = byteEnd + 1
  }
}

/** Keeps a BOM in its output, so only the one {@link decodeStrict} drops (at the start of the region) is dropped. */
const lineDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Slow path (some line is not valid UTF-8): decode and parse each complete line on its own. Every valid line gets the
 * verdict the fast path would give it: a BOM is dropped only at the start of the first line.
 */
function eachLineOfBytes(bytes: Uint8Array, headerEnd: number, visit: LineVisitor): void {
  let start = headerEnd
  for (;;) {
    const newline = bytes.indexOf(0x0a, start)
    if (newline < 0) return
    let value: unknown = UNPARSABLE
    try {
      const text = lineDecoder.decode(bytes.subarray(start, newline))
      value = parseText(start === headerEnd && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
    } catch {
      // invalid UTF-8: unparsable
    }
    visit(value, newline + 1)
    start = newline + 1
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isTurnEnd(value: unknown): boolean {
  return isObject(value) && value.type === 'turn/end'
}
