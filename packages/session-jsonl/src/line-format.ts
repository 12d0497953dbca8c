/**
 * The JSONL line format (docs/persistence.md#the-file-format): line 1 is the session header, every later line is one
 * event, and every record ends with `\n`. Serialization picks fields in a fixed order so a loaded event re-serializes
 * to the same bytes. `headerLine` and `eventLine` give a record's plain JSON; a log written now seals each line with a
 * checksum field (checksum.ts), and a log written before checksums keeps receiving plain lines.
 */
import type { SessionHeader } from '@bridle/session'
import { stringifyRecord } from './json-text.js'

/** The header fields a session log stores (the in-memory `SessionHeader` minus unknown keys, with plain-string ids). */
export type StoredMeta = Pick<SessionHeader, 'version' | 'createdAt' | 'cwd' | 'seedLength'> & {
  readonly id: string
  readonly parentSession?: string
}

/** The envelope of one stored event; structurally the `SessionEvent` of `@bridle/session`. */
export interface StoredEvent {
  readonly type: string
  readonly seq: number
  readonly time: number
  readonly data: unknown
  readonly surfaceOp?: unknown
  readonly sourceEventSeqs?: readonly number[]
  readonly ignorable?: true
}

import { encodeRecords } from './seal-bytes.js'

/** Serializes the header line (with its `\n`): `type, version, id, createdAt`, then the defined optional fields. */
export function headerLine(meta: StoredMeta): string {
  return `${headerRecord(meta)}\n`
}

function headerRecord(meta: StoredMeta): string {
  const { version, id, createdAt, cwd, parentSession, seedLength } = meta
  // JSON.stringify leaves out fields whose value is undefined: an optional field appears only when it is set.
  return JSON.stringify({ type: 'session', version, id, createdAt, cwd, parentSession, seedLength })
}

/** Serializes one event line (with its `\n`), carrying only the seven envelope fields, in envelope order. */
export function eventLine(event: StoredEvent): string {
  return `${eventRecord(event)}\n`
}

/** One event's JSON, without the `\n` (a record is encoded from this one string, never copied on the way). */
function eventRecord(event: StoredEvent): string {
  const record: Record<string, unknown> = {
    type: event.type,
    seq: event.seq,
    time: event.time,
    data: event.data,
  }
  if (event.surfaceOp !== undefined) record.surfaceOp = event.surfaceOp
  if (event.sourceEventSeqs !== undefined) record.sourceEventSeqs = event.sourceEventSeqs
  if (event.ignorable !== undefined) record.ignorable = event.ignorable
  return stringifyRecord(record)
}

/** Bytes to write and the running CRC after them; `running` is `undefined` for a log without checksums. */
export interface EncodedLines {
  readonly bytes: Uint8Array
  readonly running: number | undefined
}

/** The first bytes of a new log: the header line and `events`, each sealed, the chain starting at 0. */
export function encodeNewLog(meta: StoredMeta, events: readonly StoredEvent[]): EncodedLines {
  return encodeRecords([headerRecord(meta), ...events.map(eventRecord)], 0)
}

/**
 * A batch appended to an existing log, in that log's format: sealed lines continuing the chain from `running`, or
 * plain lines when the log has no checksums (`running` is `undefined`), so a file never mixes the two.
 */
export function encodeAppend(events: readonly StoredEvent[], running: number | undefined): EncodedLines {
  return encodeRecords(events.map(eventRecord), running)
}
