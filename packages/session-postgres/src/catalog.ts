import type { SessionEvent, SessionHeader, SessionRawLog, SessionSnapshotInfo, SessionSummary } from '@bridle/session'
import { encodeSegment } from '@bridle/session-jsonl'
import type { PoolLike, Tables } from './database.js'
import { headerText, type HeaderRow } from './records.js'
import { revisionString, type SessionReader } from './reader.js'
import { summaryOf, type SummaryRow } from './summary-columns.js'

/** `createdAt`, then id in code-unit order: the order of every listing. */
function byCreation(a: SessionHeader, b: SessionHeader): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/** The session row's header and summary columns, as listing reads them. */
const SUMMARY_COLUMNS = `id, format_version, created_at, cwd, parent_session, seed_length, revision, event_count, summarized,
  turns, last_activity, model_provider, model_name, first_prompt`

type SummaryRecord = HeaderRow & SummaryRow & { revision: string }

/**
 * Reads that need no live state: the list of stored sessions, the raw stored text of one, and the committed events
 * of one from a seq on (for `follow`).
 */
export class Catalog {
  constructor(
    private readonly pool: PoolLike,
    private readonly tables: Tables,
    private readonly reader: SessionReader,
    private readonly locationOf: (id: string) => string,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * `{meta, revision}` of every stored session, sorted by `createdAt`, then id in code-unit order. A row whose header
   * is refused (a foreign format version, damage) is skipped with the warning `session-postgres: skipping "<where>":
   * <err>`.
   */
  async snapshots(signal?: AbortSignal): Promise<readonly SessionSnapshotInfo[]> {
    signal?.throwIfAborted()
    const { rows } = await this.pool.query(
      `SELECT id, format_version, created_at, cwd, parent_session, seed_length, revision FROM ${this.tables.sessions}`,
    )
    signal?.throwIfAborted()
    const out: SessionSnapshotInfo[] = []
    for (const row of rows as (HeaderRow & { revision: string })[]) {
      const snapshot = this.snapshotOf(row)
      if (snapshot !== undefined) out.push(snapshot)
    }
    return Object.freeze(out.sort((a, b) => byCreation(a.meta, b.meta)))
  }

  /** The snapshot of one row; a refused header is skipped with a warning (`undefined`). */
  private snapshotOf(row: HeaderRow & { revision: string }): SessionSnapshotInfo | undefined {
    const location = this.locationOf(row.id)
    try {
      const meta = this.reader.metaOf(row, location)
      return Object.freeze({
        meta: Object.freeze({ ...meta }) as SessionHeader,
        revision: revisionString(this.tables.schema, row.id, row.revision),
      })
    } catch (error) {
      this.warn(`session-postgres: skipping "${location}": ${String(error)}`)
      return undefined
    }
  }

  /**
   * The listing summary of every stored session, in `snapshots` order, from the summary columns each write keeps; a
   * row that keeps none (written by an older version, or repaired) is summarized from its events.
   */
  async summaries(signal?: AbortSignal): Promise<readonly SessionSummary[]> {
    signal?.throwIfAborted()
    const { rows } = await this.pool.query(`SELECT ${SUMMARY_COLUMNS} FROM ${this.tables.sessions}`)
    const out: SessionSummary[] = []
    for (const row of rows as SummaryRecord[]) {
      signal?.throwIfAborted()
      const summary = await this.summarize(row)
      if (summary !== undefined) out.push(summary)
    }
    return Object.freeze(out.sort((a, b) => byCreation(a.meta, b.meta)))
  }

  /** The listing summary of `id` alone (one row read); `undefined` when absent or its header is refused. */
  async summary(id: string, signal?: AbortSignal): Promise<SessionSummary | undefined> {
    signal?.throwIfAborted()
    const { rows } = await this.pool.query(`SELECT ${SUMMARY_COLUMNS} FROM ${this.tables.sessions} WHERE id = $1`, [id])
    const row = rows[0] as SummaryRecord | undefined
    return row === undefined ? undefined : this.summarize(row)
  }

  private async summarize(row: SummaryRecord): Promise<SessionSummary | undefined> {
    const snapshot = this.snapshotOf(row)
    if (snapshot === undefined) return undefined
    return summaryOf(snapshot, row, () => this.eventsFrom(row.id, 0, Number(row.event_count)))
  }

  /**
   * The stored session as the text of a JSONL log — the header line, then every stored event row (damaged ones
   * included) — with the file name session-jsonl would give it. `undefined` when absent; a refused header rejects.
   */
  async raw(id: string, signal?: AbortSignal): Promise<SessionRawLog | undefined> {
    signal?.throwIfAborted()
    const t = this.tables
    const { rows } = await this.pool.query(
      `SELECT NULL::integer AS seq, NULL::text AS body, format_version, created_at, cwd, parent_session, seed_length
         FROM ${t.sessions} WHERE id = $1
       UNION ALL
       SELECT seq, body, NULL, NULL, NULL, NULL, NULL FROM ${t.events} WHERE session_id = $1
       ORDER BY seq NULLS FIRST`,
      [id],
    )
    const head = rows[0]
    if (head === undefined || head.seq !== null) return undefined
    const meta = this.reader.metaOf({ ...head, id } as HeaderRow, this.locationOf(id))
    let content = headerText(meta) + '\n'
    for (let i = 1; i < rows.length; i++) content += rows[i].body + '\n'
    return Object.freeze({
      header: Object.freeze({ ...meta }) as SessionHeader,
      fileName: `${encodeSegment(id)}.jsonl`,
      content,
    })
  }

  /**
   * The committed events of `id` with seq ≥ `from`, in order (at most `limit`). Rejects with `session "<id>" not
   * found` when the session is absent. Parsing failures surface as `SessionPersistenceCorruptionError` from the
   * full read instead, so a follower never shows damaged rows as events.
   */
  async eventsFrom(id: string, from: number, limit: number): Promise<SessionEvent[]> {
    const t = this.tables
    const { rows } = await this.pool.query(
      `SELECT NULL::integer AS seq, NULL::text AS body FROM ${t.sessions} WHERE id = $1
       UNION ALL
       (SELECT seq, body FROM ${t.events} WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3)
       ORDER BY seq NULLS FIRST`,
      [id, from, limit],
    )
    if (rows[0] === undefined || rows[0].seq !== null) throw new Error(`session "${id}" not found`)
    const events: SessionEvent[] = []
    for (let i = 1; i < rows.length; i++) {
      const { seq, body } = rows[i]
      if (seq !== from + events.length) break
      let event: SessionEvent
      try {
        event = JSON.parse(body) as SessionEvent
      } catch {
        break
      }
      if (event?.seq !== seq) break
      events.push(event)
    }
    return events
  }
}
