import { isAbsolute } from 'node:path'
import { CHECKSUM_KEY, sealHolds, storedSeal, type Seal } from './checksum.js'
import type { StoredMeta } from './line-format.js'
import { isRecord } from '@bridle/llm'

/**
 * Why a header was refused. `corrupt` becomes a `SessionPersistenceCorruptionError`; `format` (a foreign log format
 * version) becomes a `SessionFormatUnsupportedError`, which means nothing is damaged.
 */
export class HeaderDefect extends Error {
  constructor(
    message: string,
    readonly kind: 'corrupt' | 'format',
  ) {
    super(message)
    this.name = 'HeaderDefect'
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true })

/** Decodes UTF-8 strictly (dropping a leading BOM) and parses JSON; `{ok: false}` for invalid UTF-8 or JSON. */
function parseJsonBytes(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(decoder.decode(bytes)) }
  } catch {
    return { ok: false }
  }
}

/** The message for a header whose checksum does not hold. */
export const HEADER_CHECKSUM_MISMATCH = 'corrupt session log: checksum mismatch in the header line'

/**
 * Parses line 1 of a log (docs/persistence.md#the-file-format). Returns the stored header fields, the byte offset just
 * past the header's `\n`, and — for a sealed log (one whose lines carry checksums) — the header's seal, which the event
 * scan continues from. The checksum is checked first: a version number is only worth believing once the line is known
 * intact. A foreign `version` is refused before any structural check; the identity check is the caller's.
 */
export function parseHeader(bytes: Uint8Array): { meta: StoredMeta; headerEnd: number; seal?: Seal } {
  const newline = bytes.indexOf(0x0a)
  if (newline < 0) throw new HeaderDefect('empty or header-less session log', 'corrupt')
  const seal = storedSeal(bytes, 0, newline)
  if (seal !== undefined && !sealHolds(bytes, seal)) throw new HeaderDefect(HEADER_CHECKSUM_MISMATCH, 'corrupt')
  const parsed = parseJsonBytes(bytes.subarray(0, newline))
  if (!parsed.ok) throw new HeaderDefect('corrupt session log: header line is not valid JSON', 'corrupt')
  const record = parsed.value
  if (isRecord(record) && Object.hasOwn(record, CHECKSUM_KEY)) {
    // A sealed header whose seal no longer reads as one (its digits or field name were damaged).
    if (seal === undefined) throw new HeaderDefect(HEADER_CHECKSUM_MISMATCH, 'corrupt')
    delete record[CHECKSUM_KEY]
  }
  if (isRecord(record) && typeof record.version === 'number' && record.version !== 0) {
    throw new HeaderDefect(foreignVersionMessage(record.id, record.version), 'format')
  }
  const meta = headerShape(record)
  if (meta === undefined) throw new HeaderDefect('corrupt session log: first line is not a session header', 'corrupt')
  return seal === undefined ? { meta, headerEnd: newline + 1 } : { meta, headerEnd: newline + 1, seal }
}

function foreignVersionMessage(id: unknown, version: number): string {
  const shown = typeof id === 'string' ? id : String(id)
  return version > 0
    ? `session "${shown}" uses log format v${version}, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it`
    : `session "${shown}" uses log format v${version}, older than the supported v0, and this build ships no upgrade path for it`
}

function headerShape(record: unknown): StoredMeta | undefined {
  if (!isRecord(record)) return undefined
  if (record.type !== 'session' || record.version !== 0 || typeof record.id !== 'string') return undefined
  if (!isCount(record.createdAt)) return undefined
  const meta: { -readonly [K in keyof StoredMeta]: StoredMeta[K] } = {
    version: 0,
    id: record.id,
    createdAt: record.createdAt,
  }
  if (record.cwd !== undefined) {
    if (typeof record.cwd !== 'string' || !isAbsolute(record.cwd)) return undefined
    meta.cwd = record.cwd
  }
  if (record.parentSession !== undefined) {
    if (typeof record.parentSession !== 'string') return undefined
    meta.parentSession = record.parentSession
  }
  if (record.seedLength !== undefined) {
    if (!isCount(record.seedLength)) return undefined
    meta.seedLength = record.seedLength
  }
  return meta
}

/** A non-negative safe integer that is not `-0`. */
function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0)
}
