import {
  interruptedTurnClosers,
  KNOWN_SESSION_EVENT_TYPES,
  Session,
  SessionFormatUnsupportedError,
  SessionPersistenceCorruptionError,
  type SessionEvent,
  type SessionHeader,
} from '@bridle/session'
import type { StoredMeta } from '@bridle/session-jsonl'
import type { PoolLike, Tables } from './database.js'
import type { LeaseHolder } from './errors.js'
import { HeaderRowDefect, metaOfRow, type HeaderRow } from './records.js'

/** One session as read from the database in one snapshot, after the committed-region scan. */
export interface StoredSession {
  readonly meta: StoredMeta
  /** The accepted prefix (seqs contiguous from 0), before closers. */
  readonly events: SessionEvent[]
  /** How many event rows the session has; more than `events.length` when a damaged tail was discarded. */
  readonly rows: number
  /** The writer's cursor (`sessions.event_count`). */
  readonly eventCount: number
  /** The opaque revision: changes on every append or repair. */
  readonly revision: string
  readonly lease: LeaseHolder | undefined
  readonly location: string
}

/** A validated, balanced view: stored events plus the closers that end an interrupted turn. */
export interface BalancedSession {
  readonly meta: SessionHeader
  readonly events: readonly SessionEvent[]
  readonly closers: readonly SessionEvent[]
}

const UNPARSABLE: unique symbol = Symbol('unparsable event')

/**
 * The read side (the same rules as session-jsonl's reader, over rows instead of lines): one-snapshot reads, the
 * header row, the committed-region rule, and the validation after the scan. Reads never write.
 */
export class SessionReader {
  constructor(
    private readonly pool: PoolLike,
    private readonly tables: Tables,
    private readonly locationOf: (id: string) => string,
    private readonly extraEventTypes: ReadonlySet<string>,
  ) {}

  /**
   * Reads the session `id` (header and every event row, in one statement, so one snapshot) and applies the
   * committed-region rule. Rejects with `session "<id>" not found`, with `SessionPersistenceCorruptionError` for a
   * damaged header or committed region, and with `SessionFormatUnsupportedError` for a foreign format version.
   */
  async read(id: string): Promise<StoredSession> {
    const t = this.tables
    const result = await this.pool.query(
      `SELECT NULL::integer AS seq, NULL::text AS body, format_version, created_at, cwd, parent_session, seed_length,
              revision, event_count, lease_owner, lease_token, (extract(epoch FROM lease_expires) * 1000)::float8 AS expires
         FROM ${t.sessions} WHERE id = $1
       UNION ALL
       SELECT seq, body, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
         FROM ${t.events} WHERE session_id = $1
       ORDER BY seq NULLS FIRST`,
      [id],
    )
    const rows = result.rows
    const head = rows[0]
    if (head === undefined || head.seq !== null) throw new Error(`session "${id}" not found`)
    const location = this.locationOf(id)
    const meta = this.metaOf({ ...head, id } as HeaderRow, location)
    const events = scanRows(rows, 1, location)
    return {
      meta,
      events,
      rows: rows.length - 1,
      eventCount: Number(head.event_count),
      revision: revisionString(t.schema, id, head.revision),
      lease: leaseOf(head),
      location,
    }
  }

  /** The stored header of a row, or the error that refuses it (corruption or a foreign format). */
  metaOf(row: HeaderRow, location: string): StoredMeta {
    try {
      return metaOfRow(row)
    } catch (error) {
      if (!(error instanceof HeaderRowDefect)) throw error
      if (error.kind === 'format') throw formatUnsupported(error.message, location)
      throw new SessionPersistenceCorruptionError(error.message, { cause: error, path: location })
    }
  }

  /**
   * Validates a scanned session and computes its closers: legacy vocabulary, then unknown non-ignorable types
   * (`SessionFormatUnsupportedError`, never wrapped), then a full `Session.fromRestore` of the balanced events.
   * Failures of the first and last check are wrapped as `stored session "<id>" failed validation: <err>`.
   */
  validate(stored: StoredSession): BalancedSession {
    const { meta, location } = stored
    const id = meta.id
    const events = stored.events
    const wrap = (error: unknown) =>
      new SessionPersistenceCorruptionError(`stored session "${id}" failed validation: ${String(error)}`, { cause: error, path: location })
    for (const event of events) {
      const legacy = legacyMessage(id, event)
      if (legacy !== undefined) throw wrap(new Error(legacy))
    }
    for (const event of events) {
      if (KNOWN_SESSION_EVENT_TYPES.has(event.type) || this.extraEventTypes.has(event.type)) continue
      if ((event as { ignorable?: unknown }).ignorable === true) continue
      throw formatUnsupported(
        `session "${id}" contains event type "${event.type}" (seq ${event.seq}) unknown to this harness and not marked ignorable; refusing to interpret the log — it was likely written by a newer harness`,
        location,
      )
    }
    const closers = interruptedTurnClosers(events) as unknown as SessionEvent[]
    const balanced = closers.length === 0 ? events : events.concat(closers)
    try {
      Session.fromRestore(id, balanced, { ...meta })
    } catch (error) {
      throw wrap(error)
    }
    return { meta: meta as SessionHeader, events: Object.freeze(balanced), closers }
  }
}

/** `postgres:<schema>:<id>:<revision>` — opaque to callers; equal exactly while nothing was written. */
export function revisionString(schema: string, id: string, revision: unknown): string {
  return `postgres:${schema.replace(/"/g, '')}:${encodeURIComponent(id)}:${String(revision)}`
}

function leaseOf(row: { lease_owner: string | null; lease_token: unknown; expires: number | null }): LeaseHolder | undefined {
  if (row.lease_owner === null || row.expires === null) return undefined
  return { owner: row.lease_owner, token: Number(row.lease_token), expiresAt: new Date(row.expires) }
}

/** Builds a `SessionFormatUnsupportedError` for a session in the database. */
export function formatUnsupported(message: string, location: string): SessionFormatUnsupportedError {
  return new SessionFormatUnsupportedError(`${message} (raw log: ${location})`, { kind: 'postgres', path: location })
}

/**
 * The committed-region rule over event rows `rows[from..]` (each `{seq, body}` in seq order): the first defect — a
 * body that is not JSON, or a row whose seq (or whose event's seq) is not the next one — ends the accepted prefix;
 * if that defect or any later row decodes as `turn/end`, the damage lies in the committed region and is thrown as
 * `SessionPersistenceCorruptionError`; otherwise the defect and everything after it is discarded (closers end the
 * interrupted turn). Only JSON syntax and seq order are checked here.
 */
export function scanRows(rows: readonly { seq: number; body: string }[], from: number, location: string): SessionEvent[] {
  const events: SessionEvent[] = []
  let defect: string | undefined
  for (let i = from; i < rows.length; i++) {
    const { seq, body } = rows[i]!
    let value: unknown = UNPARSABLE
    try {
      value = JSON.parse(body)
    } catch {
      // unparsable
    }
    if (defect === undefined) {
      if (value === UNPARSABLE) {
        defect = `corrupt session log: unparsable committed event at seq ${seq}`
        continue
      }
      const expected = events.length
      const eventSeq = isObject(value) ? value.seq : undefined
      if (seq !== expected || eventSeq !== expected) {
        const got = seq !== expected ? seq : eventSeq
        defect = `corrupt session log: seq gap in committed region at seq ${seq} (expected ${expected}, got ${String(got)})`
        if (isTurnEnd(value)) throw new SessionPersistenceCorruptionError(defect, { path: location })
        continue
      }
      events.push(value as unknown as SessionEvent)
    } else if (value !== UNPARSABLE && isTurnEnd(value)) {
      throw new SessionPersistenceCorruptionError(defect, { path: location })
    }
  }
  return events
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isTurnEnd(value: unknown): boolean {
  return isObject(value) && value.type === 'turn/end'
}

function legacyMessage(id: string, event: SessionEvent): string | undefined {
  const type = event.type as string
  if (type === 'request/header-delta') return `session "${id}" contains unsupported legacy request/header-delta event at seq ${event.seq}`
  if (type === 'mode/set') return `session "${id}" contains unsupported legacy mode/set event at seq ${event.seq}`
  if (type === 'request/header') {
    const data = event.data as { reason?: unknown } | null
    if (typeof data === 'object' && data !== null && data.reason === 'fallback') {
      return `session "${id}" contains unsupported legacy request/header reason "fallback" at seq ${event.seq}`
    }
  }
  return undefined
}
