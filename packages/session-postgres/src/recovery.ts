import type { Session, SessionEvent, SessionInspection } from '@bridle/session'
import { assertSameCwd } from '@bridle/session-jsonl'
import type { Leases } from './lease.js'
import { recoveryWarning, type SessionReader } from './reader.js'
import { repair, type WriteContext } from './writer.js'

/** What recovery reads and writes through. */
export interface RecoveryContext {
  readonly reader: SessionReader
  readonly leases: Leases
  readonly write: WriteContext
  readonly warn: (message: string) => void
}

/**
 * Commits crash recovery of a stored session under a lease and returns the balanced, frozen view. A session that
 * needs no repair is returned without taking the lease. With `token`, the caller already holds the lease; otherwise
 * it is taken (bumping the fencing token, which fences a stale writer) and given back here — refused with
 * `SessionLeasedError` while another process holds it, since that process may be in the middle of the very turn a
 * repair would close. When rows were deleted, `warn` gets a line saying how many and why, and the view carries the
 * same `recovery` report. Run it on the id chain.
 */
export async function commitRepair(r: RecoveryContext, id: string, token?: number): Promise<SessionInspection> {
  const stored = await r.reader.read(id)
  const balanced = r.reader.validate(stored)
  if (stored.rows === stored.events.length && balanced.closers.length === 0) {
    return Object.freeze({ meta: balanced.meta, events: balanced.events })
  }
  let recovery = stored.recovery
  const held = token ?? (await r.leases.acquire(id))
  try {
    // Read again under the lease: the previous holder may have written more before it lost the lease.
    const current = token === undefined ? await r.reader.read(id) : stored
    const closing = r.reader.validate(current)
    recovery = current.recovery
    if (current.rows !== current.events.length || closing.closers.length > 0) {
      await repair(r.write, id, held, current.events.length, closing.closers)
      if (recovery !== undefined) r.warn(recoveryWarning(id, recovery))
    }
  } finally {
    if (token === undefined) await r.leases.release(id, held).catch(() => undefined)
  }
  const repaired = r.reader.validate(await r.reader.read(id))
  return Object.freeze({
    meta: repaired.meta,
    events: repaired.events,
    ...(recovery === undefined ? {} : { recovery }),
  })
}

/**
 * Adoption of a live session whose id is stored (a plugin restart): takes the lease, then requires the stored cwd
 * to equal the live one and the live events to reproduce the stored prefix. Resolves how many events are stored
 * and the lease token, or `undefined` when nothing is stored under the id. On a mismatch the lease is given back
 * and the id collision is thrown. The live session is the authority: an open turn is not closed.
 */
export async function adoptStored(
  r: RecoveryContext,
  session: Session,
): Promise<{ cursor: number; token: number } | undefined> {
  const id = session.id
  const exists = await r.write.pool.query(`SELECT 1 FROM ${r.write.tables.sessions} WHERE id = $1`, [id])
  if (exists.rows.length === 0) return undefined
  const token = await r.leases.acquire(id)
  try {
    const stored = await r.reader.read(id)
    assertSameCwd(id, stored.meta.cwd, session.header.cwd)
    const live = session.events
    const same = (a: SessionEvent, b: SessionEvent | undefined) =>
      b !== undefined && JSON.stringify(a) === JSON.stringify(b)
    const matches =
      stored.rows === stored.events.length &&
      stored.events.length <= live.length &&
      stored.events.every((e, seq) => same(e, live[seq]))
    if (!matches)
      throw new Error(
        `session "${id}" already has a persisted log in the database that does not match this live session (id collision)`,
      )
    return { cursor: stored.events.length, token }
  } catch (error) {
    await r.leases.release(id, token).catch(() => undefined)
    throw error
  }
}
