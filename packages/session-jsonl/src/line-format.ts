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

import { sealLines } from './checksum.js'

const encoder = new TextEncoder()

/** Serializes the header line (with its `\n`): `type, version, id, createdAt`, then the defined optional fields. */
export function headerLine(meta: StoredMeta): string {
  const { version, id, createdAt, cwd, parentSession, seedLength } = meta
  // JSON.stringify leaves out fields whose value is undefined: an optional field appears only when it is set.
  return JSON.stringify({ type: 'session', version, id, createdAt, cwd, parentSession, seedLength }) + '\n'
}

/** Serializes one event line (with its `\n`), carrying only the seven envelope fields, in envelope order. */
export function eventLine(event: StoredEvent): string {
  const record: Record<string, unknown> = {
    type: event.type,
    seq: event.seq,
    time: event.time,
    data: event.data,
  }
  if (event.surfaceOp !== undefined) record.surfaceOp = event.surfaceOp
  if (event.sourceEventSeqs !== undefined) record.sourceEventSeqs = event.sourceEventSeqs
  if (event.ignorable !== undefined) record.ignorable = event.ignorable
  return stringifyRecord(record) + '\n'
}

/** The text of a batch of events: one line each, concatenated for a single write. */
function eventsText(events: readonly StoredEvent[]): string {
  let text = ''
  for (const event of events) text += eventLine(event)
  return text
}

/** The UTF-8 bytes of a batch of events, as plain lines (the format of logs written before checksums). */
function encodeEvents(events: readonly StoredEvent[]): Uint8Array {
  return encoder.encode(eventsText(events))
}

/** Bytes to write and the running CRC after them; `running` is `undefined` for a log without checksums. */
export interface EncodedLines {
  readonly bytes: Uint8Array
  readonly running: number | undefined
}

/** A new log's first write: the header and the first batch, sealed from the start of the file. */
export function encodeNewLog(meta: StoredMeta, events: readonly StoredEvent[]): EncodedLines {
  const sealed = sealLines(headerLine(meta) + eventsText(events), 0)
  return { bytes: encoder.encode(sealed.text), running: sealed.running }
}

/**
 * A batch appended to an existing log, in that log's format: sealed lines continuing the chain from `running`, or
 * plain lines when the log has no checksums (`running` is `undefined`), so a file never mixes the two.
 */
export function encodeAppend(events: readonly StoredEvent[], running: number | undefined): EncodedLines {
  if (running === undefined) return { bytes: encodeEvents(events), running }
  const sealed = sealLines(eventsText(events), running)
  return { bytes: encoder.encode(sealed.text), running: sealed.running }
}
