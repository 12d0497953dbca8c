import { isAbsolute } from 'node:path'
import type { SessionEvent } from '@bridle/session'
import { headerLine, type StoredMeta } from '@bridle/session-jsonl'

/**
 * How a session is stored in its rows: the header as columns of `sessions`, each event as the JSON text of its
 * envelope (`type, seq, time, data`, then `surfaceOp`, `sourceEventSeqs`, `ignorable` when present) — the same text
 * a JSONL line holds, so a reload returns events deep-equal to the appended ones and re-serializes to the same bytes.
 */

/** The JSON text of one event (no newline). JSON text never holds a raw newline, so a batch joins with `\n`. */
export function eventText(event: SessionEvent): string {
  const record: Record<string, unknown> = { type: event.type, seq: event.seq, time: event.time, data: event.data }
  if (event.surfaceOp !== undefined) record.surfaceOp = event.surfaceOp
  if (event.sourceEventSeqs !== undefined) record.sourceEventSeqs = event.sourceEventSeqs
  const ignorable = (event as { ignorable?: unknown }).ignorable
  if (ignorable !== undefined) record.ignorable = ignorable
  return JSON.stringify(record)
}

/** A batch of events as one `\n`-joined text (split back into rows by the database). */
export function batchText(events: readonly SessionEvent[]): string {
  let text = ''
  for (let i = 0; i < events.length; i++) text += (i === 0 ? '' : '\n') + eventText(events[i]!)
  return text
}

/** A `sessions` row's header columns, as read. */
export interface HeaderRow {
  readonly id: string
  readonly format_version: number
  readonly created_at: string | number
  readonly cwd: string | null
  readonly parent_session: string | null
  readonly seed_length: number | null
}

/** Why a header row was refused: `format` is a foreign log format version (nothing damaged), `corrupt` is damage. */
export class HeaderRowDefect extends Error {
  constructor(
    message: string,
    readonly kind: 'corrupt' | 'format',
  ) {
    super(message)
    this.name = 'HeaderRowDefect'
  }
}

/**
 * Rebuilds the stored header from its row. A foreign `format_version` is refused first, with the wording session-jsonl
 * uses for a foreign log version; then the fields must have the shapes a session header allows.
 */
export function metaOfRow(row: HeaderRow): StoredMeta {
  const version = Number(row.format_version)
  if (version !== 0) {
    throw new HeaderRowDefect(
      version > 0
        ? `session "${row.id}" uses log format v${version}, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it`
        : `session "${row.id}" uses log format v${version}, older than the supported v0, and this build ships no upgrade path for it`,
      'format',
    )
  }
  const createdAt = Number(row.created_at)
  const meta: { -readonly [K in keyof StoredMeta]: StoredMeta[K] } = { version: 0, id: row.id, createdAt }
  const bad = (field: string) =>
    new HeaderRowDefect(`corrupt session record: the stored header field ${field} is invalid`, 'corrupt')
  if (!Number.isSafeInteger(createdAt) || createdAt < 0) throw bad('created_at')
  if (row.cwd !== null) {
    if (!isAbsolute(row.cwd)) throw bad('cwd')
    meta.cwd = row.cwd
  }
  if (row.parent_session !== null) meta.parentSession = row.parent_session
  if (row.seed_length !== null) {
    if (!Number.isSafeInteger(row.seed_length) || row.seed_length < 0) throw bad('seed_length')
    meta.seedLength = row.seed_length
  }
  return meta
}

/** The header columns of a stored meta, in the order the insert statements take them. */
export function headerValues(meta: StoredMeta): [number, string | null, string | null, number | null] {
  return [meta.createdAt, meta.cwd ?? null, meta.parentSession ?? null, meta.seedLength ?? null]
}

/** The JSON header line of a stored meta (session-jsonl's line 1, without its newline), for `readRaw`. */
export function headerText(meta: StoredMeta): string {
  return headerLine(meta).slice(0, -1)
}
