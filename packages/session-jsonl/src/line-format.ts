/**
 * The JSONL line format (persistence.md §3): line 1 is the session header, every later line is one event, and every
 * record ends with `\n`. Serialization picks fields in a fixed order so a loaded event re-serializes to the same
 * bytes.
 */
import { stringifyRecord } from './json-text.js'

/** The header fields a session log stores (the in-memory `SessionHeader`, minus unknown keys). */
export interface StoredMeta {
  readonly version: 0
  readonly id: string
  readonly createdAt: number
  readonly cwd?: string
  readonly parentSession?: string
  readonly seedLength?: number
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

const encoder = new TextEncoder()

/** Serializes the header line (with its `\n`): `type, version, id, createdAt`, then the defined optional fields. */
export function headerLine(meta: StoredMeta): string {
  const record: Record<string, unknown> = {
    type: 'session',
    version: meta.version,
    id: meta.id,
    createdAt: meta.createdAt,
  }
  if (meta.cwd !== undefined) record.cwd = meta.cwd
  if (meta.parentSession !== undefined) record.parentSession = meta.parentSession
  if (meta.seedLength !== undefined) record.seedLength = meta.seedLength
  return JSON.stringify(record) + '\n'
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
export function eventsText(events: readonly StoredEvent[]): string {
  let text = ''
  for (const event of events) text += eventLine(event)
  return text
}

/** The UTF-8 bytes of a batch of events. */
export function encodeEvents(events: readonly StoredEvent[]): Uint8Array {
  return encoder.encode(eventsText(events))
}

/** UTF-8 encodes a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text)
}
