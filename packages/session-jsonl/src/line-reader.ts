/**
 * Reading the complete lines of a log's event region into parsed values, for the scan (scan.ts). This runs once per
 * stored event on every reload, so it is written to allocate little per line: one slice of the text decoded once,
 * the values `JSON.parse` builds, and nothing else.
 */
import { Buffer, isUtf8 } from 'node:buffer'
import { CHECKSUM_KEY, SUFFIX_LENGTH } from './checksum.js'

/** The value a complete line stands for when it is not valid JSON (an empty line included). */
export const UNPARSABLE: unique symbol = Symbol('unparsable line')

/**
 * Called for each complete line, in order, with its parsed value (or `UNPARSABLE`), the byte offset where it starts
 * and the byte offset past its `\n`. For a sealed log the value comes without its checksum field, and a line that
 * carries none is `UNPARSABLE`.
 */
export type LineVisitor = (value: unknown, start: number, end: number) => void

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

/**
 * Fast path: the complete lines were decoded in one go (`text`, the region starting at byte `headerEnd`). When the
 * region is ASCII (text and bytes have the same length) a line's byte offsets are its character offsets; otherwise
 * `\n` is found in the text and in the bytes in lockstep. A plain loop with a visitor: no generator, no per-line
 * result objects.
 */
export function eachLineOfText(
  bytes: Uint8Array,
  headerEnd: number,
  text: string,
  sealed: boolean,
  visit: LineVisitor,
): void {
  const regionBytes = bytes.lastIndexOf(0x0a) + 1 - headerEnd
  const ascii = text.length === regionBytes
  let charStart = 0
  let byteStart = headerEnd
  for (;;) {
    const charEnd = text.indexOf('\n', charStart)
    if (charEnd < 0) return
    const byteEnd = ascii ? headerEnd + charEnd : bytes.indexOf(0x0a, byteStart)
    visit(
      sealed ? parseSealed(text, charStart, charEnd) : parseText(text.slice(charStart, charEnd)),
      byteStart,
      byteEnd + 1,
    )
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
export function eachLineOfBytes(bytes: Uint8Array, headerEnd: number, sealed: boolean, visit: LineVisitor): void {
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
    if (sealed && value !== UNPARSABLE && !unseal(value)) value = UNPARSABLE
    visit(value, start, newline + 1)
    start = newline + 1
  }
}

function parseText(text: string): unknown {
  if (text.length === 0) return UNPARSABLE
  try {
    return JSON.parse(text)
  } catch {
    return UNPARSABLE
  }
}

/** `,"crc":"`, the start of a sealed line's fixed-length end (checksum.ts). */
const SUFFIX_HEAD = `,"${CHECKSUM_KEY}":"`

/**
 * A sealed line's value without its checksum field: the same value as parsing the whole line and deleting the field,
 * and `UNPARSABLE` when the line does not end in a well-formed `,"crc":"<8 hex>"}` (as for a parsed line without the
 * field). The line is parsed up to the field instead: `JSON.parse` would otherwise build the checksum's string (an
 * entry in the engine's string table, short strings being interned) only for it to be deleted, which cost more than a
 * tenth of a reload. Lines that end in the field right after `{` or whitespace are parsed whole, since cutting the
 * field would leave a valid `{}` where the whole line is invalid.
 */
function parseSealed(text: string, start: number, end: number): unknown {
  const suffix = end - SUFFIX_LENGTH
  if (suffix <= start || !endsInSeal(text, suffix, end)) return UNPARSABLE
  const before = text.charCodeAt(suffix - 1)
  if (before === 0x7b || before === 0x20 || before === 0x09 || before === 0x0d) {
    const value = parseText(text.slice(start, end))
    return value !== UNPARSABLE && unseal(value) ? value : UNPARSABLE
  }
  const value = parseText(`${text.slice(start, suffix)}}`)
  if (!isObject(value)) return UNPARSABLE
  // A duplicate field earlier in the line: parsing the whole line would have kept the last one and then deleted it.
  if (value[CHECKSUM_KEY] !== undefined) delete value[CHECKSUM_KEY]
  return value
}

/** Whether `text` holds `,"crc":"<8 lowercase hex>"}` from `suffix` to `end`. */
function endsInSeal(text: string, suffix: number, end: number): boolean {
  if (text.charCodeAt(end - 1) !== 0x7d || text.charCodeAt(end - 2) !== 0x22) return false
  if (!text.startsWith(SUFFIX_HEAD, suffix)) return false
  for (let i = suffix + SUFFIX_HEAD.length; i < end - 2; i++) {
    const c = text.charCodeAt(i)
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false
  }
  return true
}

/** Removes the checksum field of a parsed sealed line; false when it has none. */
function unseal(value: unknown): boolean {
  if (!isObject(value) || typeof value[CHECKSUM_KEY] !== 'string') return false
  // The field is the last one parsed, and deleting an object's newest property keeps its fast shape in V8.
  delete value[CHECKSUM_KEY]
  return true
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
