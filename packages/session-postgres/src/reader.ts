import { isRecord } from '@bridle/llm'
import { Session, SessionPersistenceCorruptionError } from '@bridle/session'
import type { SessionEvent, SessionHeader, SessionRecoveryReport } from '@bridle/session'
import { formatUnsupported, type StoredMeta, validateStoredEvents } from '@bridle/session-jsonl'
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
  /** What a load discards past the accepted prefix (a damaged tail), or `undefined` when every row is accepted. */
  readonly recovery: SessionRecoveryReport | undefined
}

/** A validated, balanced view: stored events plus the closers that end an interrupted turn. */
export interface BalancedSession {
  readonly meta: SessionHeader
  readonly events: readonly SessionEvent[]
  readonly closers: readonly SessionEvent[]
  readonly recovery: SessionRecoveryReport | undefined
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
    const scan = scanRows(rows, 1, location)
    const events = scan.events
    return {
      meta,
      events,
      rows: rows.length - 1,
      recovery: recoveryOf(scan, rows.length - 1, location),
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
      if (error.kind === 'format') throw formatUnsupported(error.message, { kind: 'postgres', location })
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
    const { balanced, closers } = validateStoredEvents(
      id,
      stored.events,
      { kind: 'postgres', location },
      this.extraEventTypes,
      (events) => Session.fromRestore(id, events, { ...meta }),
    )
    return { meta: meta as SessionHeader, events: Object.freeze(balanced), closers, recovery: stored.recovery }
  }
}

/** `postgres:<schema>:<id>:<revision>` — opaque to callers; equal exactly while nothing was written. */
export function revisionString(schema: string, id: string, revision: unknown): string {
  return `postgres:${schema.replace(/"/g, '')}:${encodeURIComponent(id)}:${String(revision)}`
}

function leaseOf(row: {
  lease_owner: string | null
  lease_token: unknown
  expires: number | null
}): LeaseHolder | undefined {
  if (row.lease_owner === null || row.expires === null) return undefined
  return { owner: row.lease_owner, token: Number(row.lease_token), expiresAt: new Date(row.expires) }
}

/** Builds a `SessionFormatUnsupportedError` for a session in the database. */

/** The accepted prefix of a session's event rows, and the first defect that ended it (if any). */
interface RowScan {
  readonly events: SessionEvent[]
  /** The first rejected row: its seq and why; absent when every row was accepted. */
  readonly defect?: { readonly seq: number; readonly reason: string }
  /** Rows after the accepted prefix that still decode as an event object (lost only because of their place). */
  readonly intactDropped: number
}

/**
 * The committed-region rule over event rows `rows[from..]` (each `{seq, body}` in seq order): the first defect — a
 * body that is not JSON, or a row whose seq (or whose event's seq) is not the next one — ends the accepted prefix;
 * if that defect or any later row decodes as `turn/end`, the damage lies in the committed region and is thrown as
 * `SessionPersistenceCorruptionError`; otherwise the defect and everything after it is discarded (closers end the
 * interrupted turn). Only JSON syntax and seq order are checked here.
 */
function scanRows(rows: readonly { seq: number; body: string }[], from: number, location: string): RowScan {
  const events: SessionEvent[] = []
  let defect: { seq: number; reason: string; message: string } | undefined
  let intactDropped = 0
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
        defect = {
          seq,
          reason: `unparsable row at seq ${seq}`,
          message: `corrupt session log: unparsable committed event at seq ${seq}`,
        }
        continue
      }
      const expected = events.length
      const eventSeq = isRecord(value) ? value.seq : undefined
      if (seq !== expected || eventSeq !== expected) {
        const got = seq !== expected ? seq : eventSeq
        const reason = `seq gap at seq ${seq} (expected ${expected}, got ${String(got)})`
        defect = {
          seq,
          reason,
          message: `corrupt session log: seq gap in committed region at seq ${seq} (expected ${expected}, got ${String(got)})`,
        }
        if (isTurnEnd(value)) throw new SessionPersistenceCorruptionError(defect.message, { path: location })
        if (isRecord(value)) intactDropped++
        continue
      }
      events.push(value as unknown as SessionEvent)
    } else if (value !== UNPARSABLE && isTurnEnd(value)) {
      throw new SessionPersistenceCorruptionError(defect.message, { path: location })
    } else if (isRecord(value)) {
      intactDropped++
    }
  }
  return defect === undefined
    ? { events, intactDropped }
    : { events, defect: { seq: defect.seq, reason: defect.reason }, intactDropped }
}

/**
 * The recovery report of a scan that rejected rows, numbered as the lines of the session's JSONL rendering
 * (`readRaw`): line 1 is the header row, the event row at position k (from 0) is line k + 2. A database row is never
 * torn, so `fragmentBytes` is 0.
 */
function recoveryOf(scan: RowScan, rowCount: number, location: string): SessionRecoveryReport | undefined {
  if (scan.defect === undefined) return undefined
  const firstLine = scan.events.length + 2
  const report: SessionRecoveryReport = {
    location: Object.freeze({ kind: 'postgres', path: location }),
    firstLine,
    lastLine: rowCount + 1,
    droppedLines: rowCount - scan.events.length,
    droppedEvents: scan.intactDropped,
    fragmentBytes: 0,
    defect: Object.freeze({ line: firstLine, reason: scan.defect.reason }),
  }
  return Object.freeze(report)
}

/**
 * The warning a committed repair logs when it deleted rows, e.g. `session-postgres: session "s1": discarded 3 rows
 * of "<location>" past the committed region, starting at a damaged row (unparsable row at seq 12); 1 of them was an
 * intact event`.
 */
export function recoveryWarning(id: string, report: SessionRecoveryReport): string {
  const rows = `${report.droppedLines} row${report.droppedLines === 1 ? '' : 's'}`
  const intact =
    report.droppedEvents === 1 ? '1 of them was an intact event' : `${report.droppedEvents} of them were intact events`
  return (
    `session-postgres: session "${id}": discarded ${rows} of "${report.location.path}" past the committed region, ` +
    `starting at a damaged row (${report.defect!.reason}); ${intact}`
  )
}

function isTurnEnd(value: unknown): boolean {
  return isRecord(value) && value.type === 'turn/end'
}
