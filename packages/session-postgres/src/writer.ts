import type { SessionEvent } from '@bridle/session'
import type { StoredMeta } from '@bridle/session-jsonl'
import type { PoolLike, Tables } from './database.js'
import { SessionLeaseLostError } from './errors.js'
import { batchText, eventText, headerValues } from './records.js'
import { batchSummaryParams, foldSummarySql } from './summary-columns.js'

/** The part of the backend a write needs. */
export interface WriteContext {
  readonly pool: PoolLike
  readonly tables: Tables
  readonly owner: string
  readonly leaseMs: number
}

/** A batch that was refused for good: the session is poisoned and rejects every later write. */
export class FatalWriteError extends Error {
  constructor(
    message: string,
    readonly error: Error = new Error(message),
  ) {
    super(message)
    this.name = 'FatalWriteError'
  }
}

/** Ids (with their seqs) of the posted messages a batch's `agent/inbox/spliced` events insert. */
function splicedIds(events: readonly SessionEvent[]): { ids: string[]; seqs: number[] } {
  const ids: string[] = []
  const seqs: number[] = []
  for (const event of events) {
    if ((event.type as string) !== 'agent/inbox/spliced') continue
    const inserted = (event.data as { inserted?: readonly { id?: unknown }[] } | null)?.inserted
    if (!Array.isArray(inserted)) continue
    for (const message of inserted) {
      if (typeof message?.id === 'string') {
        ids.push(message.id)
        seqs.push(event.seq)
      }
    }
  }
  return { ids, seqs }
}

/**
 * The optional CTE that marks the posted messages `events` splice as delivered, in the same statement as the batch
 * (gated on its `s` CTE, so only a batch that is written marks them): pushes the CTE's two parameters onto `values`.
 * Empty when the batch splices no posted message.
 */
function deliveryCte(t: Tables, values: unknown[], events: readonly SessionEvent[]): string {
  const delivered = splicedIds(events)
  if (delivered.ids.length === 0) return ''
  const idsParam = values.push(delivered.ids, delivered.seqs) - 1
  return `, m AS (
      UPDATE ${t.messages} SET delivered_seq = d.seq
        FROM s, unnest($${idsParam}::text[], $${idsParam + 1}::integer[]) AS d(id, seq)
       WHERE ${t.messages}.session_id = $1 AND ${t.messages}.message_id = d.id AND ${t.messages}.delivered_seq IS NULL)`
}

/**
 * First publication: the `sessions` row (taking the lease with fencing token 1) and the first batch, in one
 * statement, so the session either exists with its first batch or not at all. Resolves `'published'`, or
 * `'exists'` when a session with this id is already stored (nothing written).
 */
export async function publish(
  w: WriteContext,
  meta: StoredMeta,
  events: readonly SessionEvent[],
): Promise<'published' | 'exists'> {
  const t = w.tables
  const values: unknown[] = [meta.id, ...headerValues(meta), events.length, w.owner, w.leaseMs, batchText(events)]
  const summary = values.push(...batchSummaryParams(events)) - 4
  const cte = deliveryCte(t, values, events)
  const [turn, time, provider, model, prompt] = [0, 1, 2, 3, 4].map((i) => `$${summary + i}`)
  const result = await w.pool.query(
    `WITH s AS (
       INSERT INTO ${t.sessions} (id, format_version, created_at, cwd, parent_session, seed_length, event_count, revision,
                                  lease_owner, lease_token, lease_expires,
                                  summarized, turns, last_activity, model_provider, model_name, first_prompt)
       VALUES ($1, 0, $2, $3, $4, $5, $6, 1, $7, 1, now() + $8 * interval '1 millisecond',
               true, coalesce(${turn}::integer, 0), ${time}::bigint, ${provider}::text, ${model}::text, ${prompt}::text)
       ON CONFLICT (id) DO NOTHING
       RETURNING id)${cte}
     INSERT INTO ${t.events} (session_id, seq, body)
     SELECT $1, u.o - 1, u.b FROM s, string_to_table($9, E'\\n') WITH ORDINALITY AS u(b, o)`,
    values,
  )
  return result.rowCount === events.length ? 'published' : 'exists'
}

/**
 * Appends one batch (seqs `first..`) in one statement: it moves the session's cursor only if this writer's fencing
 * token and owner still hold the lease and the cursor is at `first`, and inserts the rows only if it did. The
 * lease is renewed by the same statement. Resolves when the batch is durable; on a refusal it finds out why:
 *
 * - the lease moved on: `SessionLeaseLostError` (wrapped as fatal);
 * - the cursor is already past `first` with this writer's rows (a retry after a commit whose answer was lost, e.g.
 *   the server died right after committing): the stored rows are compared with the batch, and only the part not
 *   yet stored is written — a seq is never written twice;
 * - anything else (the rows differ, the session vanished): fatal.
 */
export async function append(
  w: WriteContext,
  id: string,
  token: number,
  first: number,
  events: readonly SessionEvent[],
): Promise<void> {
  const t = w.tables
  const values: unknown[] = [id, token, first, events.length, w.leaseMs, w.owner, batchText(events)]
  const summary = values.push(...batchSummaryParams(events)) - 4
  const cte = deliveryCte(t, values, events)
  const result = await w.pool.query(
    `WITH s AS (
       UPDATE ${t.sessions}
          SET event_count = event_count + $4, revision = revision + 1, updated_at = now(),
              lease_expires = now() + $5 * interval '1 millisecond', ${foldSummarySql(summary)}
        WHERE id = $1 AND lease_token = $2 AND lease_owner = $6 AND event_count = $3
        RETURNING id)${cte}
     INSERT INTO ${t.events} (session_id, seq, body)
     SELECT $1, $3 + u.o - 1, u.b FROM s, string_to_table($7, E'\\n') WITH ORDINALITY AS u(b, o)`,
    values,
  )
  if (result.rowCount === events.length) return
  const stored = await alreadyStored(w, id, token, first, events)
  if (stored < events.length) await append(w, id, token, first + stored, events.slice(stored))
}

/**
 * After a refused append or publication: how many of `events` (from seq `first`) this writer already stored. Throws
 * `FatalWriteError` when the lease moved on or the stored rows are not this batch.
 */
async function alreadyStored(
  w: WriteContext,
  id: string,
  token: number,
  first: number,
  events: readonly SessionEvent[],
): Promise<number> {
  const t = w.tables
  const range = `seqs ${first}..${first + events.length - 1}`
  const { rows } = await w.pool.query(`SELECT lease_owner, lease_token, event_count FROM ${t.sessions} WHERE id = $1`, [
    id,
  ])
  const row = rows[0]
  if (row === undefined)
    throw new FatalWriteError(`session "${id}" no longer exists in the database; the batch of ${range} was not written`)
  const current = { owner: row.lease_owner ?? undefined, token: Number(row.lease_token) }
  if (current.token !== token || current.owner !== w.owner) {
    const error = new SessionLeaseLostError(id, token, current, range)
    throw new FatalWriteError(error.message, error)
  }
  const count = Number(row.event_count)
  const stored = Math.min(count - first, events.length)
  if (stored <= 0) {
    throw new FatalWriteError(
      `append seq mismatch for "${id}": expected the database to hold ${first} events, it holds ${count}`,
    )
  }
  const { rows: bodies } = await w.pool.query(
    `SELECT seq, body FROM ${t.events} WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq`,
    [id, first, first + stored],
  )
  const same =
    bodies.length === stored &&
    bodies.every(
      (r: { seq: number; body: string }, i: number) => r.seq === first + i && r.body === eventText(events[i]!),
    )
  if (!same) {
    throw new FatalWriteError(
      `append seq mismatch for "${id}": the database holds events at ${range} that this writer did not write`,
    )
  }
  return stored
}

/**
 * After `publish` answered `'exists'` or failed: whether the stored session is this writer's own publication (its
 * answer was lost), and if so how many of `events` are stored. `undefined` means someone else's session.
 */
export async function ownPublication(
  w: WriteContext,
  meta: StoredMeta,
  events: readonly SessionEvent[],
): Promise<number | undefined> {
  const { rows } = await w.pool.query(
    `SELECT lease_owner, lease_token, created_at FROM ${w.tables.sessions} WHERE id = $1`,
    [meta.id],
  )
  const row = rows[0]
  if (
    row === undefined ||
    row.lease_owner !== w.owner ||
    Number(row.lease_token) !== 1 ||
    Number(row.created_at) !== meta.createdAt
  ) {
    return undefined
  }
  return alreadyStored(w, meta.id, 1, 0, events)
}

/**
 * Commits a repair under the lease `token` (the caller holds it, so no one else writes meanwhile): drops event rows
 * from `committed` on (a damaged tail), appends the closers, and moves the cursor — one transaction.
 */
export async function repair(
  w: WriteContext,
  id: string,
  token: number,
  committed: number,
  closers: readonly SessionEvent[],
): Promise<void> {
  const t = w.tables
  const client = await w.pool.connect()
  let failed = false
  try {
    await client.query('BEGIN')
    const moved = await client.query(
      // the dropped tail may have carried summary facts: the next listing summarizes the events again
      `UPDATE ${t.sessions} SET event_count = $4, revision = revision + 1, updated_at = now(), summarized = false
        WHERE id = $1 AND lease_token = $2 AND lease_owner = $3`,
      [id, token, w.owner, committed + closers.length],
    )
    if (moved.rowCount !== 1) throw new Error(`cannot repair session "${id}": this process no longer holds its lease`)
    await client.query(`DELETE FROM ${t.events} WHERE session_id = $1 AND seq >= $2`, [id, committed])
    if (closers.length > 0) {
      await client.query(
        `INSERT INTO ${t.events} (session_id, seq, body)
         SELECT $1, $2 + u.o - 1, u.b FROM string_to_table($3, E'\\n') WITH ORDINALITY AS u(b, o)`,
        [id, committed, batchText(closers)],
      )
    }
    await client.query('COMMIT')
  } catch (error) {
    failed = true
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release(failed)
  }
}
