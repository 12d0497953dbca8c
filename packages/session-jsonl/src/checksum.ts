/**
 * Line checksums: a CRC-32 chain over the whole file. Every line of a sealed log ends in `,"crc":"<8 hex>"}`, and
 * that value is the CRC-32 of every byte of the file before its 8 hex digits — the header, all earlier lines, and
 * this line up to the digits. So one CRC over the file up to the last line's digits verifies every complete line at
 * once (the fast path of a reload), and a single line can still be checked on its own from the value its
 * predecessor stores. The package README explains the choice.
 */
import zlib from 'node:zlib'

/** The key of the checksum field, always the last field of a sealed line. */
export const CHECKSUM_KEY = 'crc'

/** `,"crc":"`: what precedes the 8 hex digits. */
const SUFFIX_HEAD = `,"${CHECKSUM_KEY}":"`
/** `,"crc":"` + 8 hex digits + `"}`: the fixed-length end of every sealed line (before its `\n`). */
export const SUFFIX_LENGTH = SUFFIX_HEAD.length + 8 + 2
const suffixHeadBytes = new TextEncoder().encode(SUFFIX_HEAD)

type Crc32 = (data: string | Uint8Array, value?: number) => number
const nativeCrc32 = (zlib as { crc32?: Crc32 }).crc32

/** Throws a clear error when this Node has no `zlib.crc32` (added in Node 20.15 and 22.2). */
export function assertChecksumSupport(): void {
  if (typeof nativeCrc32 !== 'function') {
    throw new Error(`session-jsonl needs zlib.crc32, which Node ${process.version} lacks: use Node 20.15 or later`)
  }
}

/** CRC-32 (the zlib polynomial) of `data`'s bytes (a string counts as its UTF-8 encoding), continuing from `value`. */
export function crc32(data: string | Uint8Array, value = 0): number {
  return nativeCrc32!(data, value)
}

/** Where a sealed line keeps its checksum: the value and the byte offset of its first hex digit. */
export interface Seal {
  readonly value: number
  readonly hexStart: number
}

/**
 * Seals one JSON object text (no `\n`) whose file bytes start where the running CRC is `running`. Returns the
 * sealed line with its `\n`, and the running CRC past it.
 */
export function sealRecord(json: string, running: number): { line: string; running: number } {
  if (json.length < 3 || json.charCodeAt(0) !== 0x7b || json.charCodeAt(json.length - 1) !== 0x7d || json === '{}') {
    throw new Error(
      `cannot seal ${JSON.stringify(json.slice(0, 40))}: a sealed line must be a JSON object with at least one field`,
    )
  }
  const head = json.slice(0, -1) + SUFFIX_HEAD
  const value = crc32(head, running)
  const tail = hex8(value) + '"}\n'
  return { line: head + tail, running: crc32(tail, value) }
}

/** Seals every line of `plain` (JSON object texts each ending in `\n`) from `running`; see {@link sealRecord}. */
export function sealLines(plain: string, running: number): { text: string; running: number } {
  let text = ''
  let start = 0
  for (let end = plain.indexOf('\n'); end >= 0; end = plain.indexOf('\n', start)) {
    const sealed = sealRecord(plain.slice(start, end), running)
    text += sealed.line
    running = sealed.running
    start = end + 1
  }
  return { text, running }
}

/**
 * Recomputes every checksum of a log text: an existing `,"crc":"…"` field is replaced, a line without one is
 * sealed. For tools that change a stored log on purpose (a test that tampers with an event, a converter); the CRC
 * guards against accidental damage only, and a deliberate edit is what `request/digest` verification catches.
 * The text must end with `\n`.
 */
export function sealLog(text: string): string {
  if (text !== '' && !text.endsWith('\n')) throw new Error('sealLog: the log text must end with a newline')
  const bytes = new TextEncoder().encode(text)
  let plain = ''
  let start = 0
  let byteStart = 0
  for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
    const byteEnd = bytes.indexOf(0x0a, byteStart)
    const line = text.slice(start, end)
    plain += (storedSeal(bytes, byteStart, byteEnd) === undefined ? line : line.slice(0, -SUFFIX_LENGTH) + '}') + '\n'
    start = end + 1
    byteStart = byteEnd + 1
  }
  return sealLines(plain, 0).text
}

/**
 * The checksum a line stores, or `undefined` when the line (bytes `start` up to its `\n` at `newline`) does not end
 * in a well-formed `,"crc":"<8 lowercase hex>"}`.
 */
export function storedSeal(bytes: Uint8Array, start: number, newline: number): Seal | undefined {
  const suffixStart = newline - SUFFIX_LENGTH
  if (suffixStart <= start || bytes[newline - 1] !== 0x7d || bytes[newline - 2] !== 0x22) return undefined
  for (let i = 0; i < suffixHeadBytes.length; i++) if (bytes[suffixStart + i] !== suffixHeadBytes[i]) return undefined
  const hexStart = suffixStart + suffixHeadBytes.length
  const value = hexValue(bytes, hexStart)
  return value === undefined ? undefined : { value, hexStart }
}

/**
 * The running CRC at byte `end` of a file whose last sealed line before `end` stores `seal`: the CRC of every byte
 * before `end`.
 */
export function runningAt(bytes: Uint8Array, seal: Seal, end: number): number {
  return crc32(bytes.subarray(seal.hexStart, end), seal.value)
}

/** True when `seal`, the checksum stored at `seal.hexStart`, is the CRC of every byte before it. */
export function sealHolds(bytes: Uint8Array, seal: Seal): boolean {
  return crc32(bytes.subarray(0, seal.hexStart)) === seal.value
}

/** True when the bytes between two sealed lines' digits continue the chain from `previous` to `next`. */
export function sealFollows(bytes: Uint8Array, previous: Seal, next: Seal): boolean {
  return crc32(bytes.subarray(previous.hexStart, next.hexStart), previous.value) === next.value
}

function hex8(value: number): string {
  return value.toString(16).padStart(8, '0')
}

function hexValue(bytes: Uint8Array, at: number): number | undefined {
  let value = 0
  for (let i = at; i < at + 8; i++) {
    const c = bytes[i]!
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1
    if (digit < 0) return undefined
    value = value * 16 + digit
  }
  return value
}
