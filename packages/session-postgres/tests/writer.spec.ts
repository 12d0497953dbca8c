/**
 * The write statements on their own: a retry of a batch whose commit answer was lost (the server died right after
 * committing) must neither duplicate nor drop a seq, and a batch under a stale token must write nothing.
 */
import { scriptedLog } from '@bridle/persistence-conformance'
import type { SessionEvent } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { tablesOf } from '../src/database.js'
import { SessionLeaseLostError } from '../src/index.js'
import { append, FatalWriteError, ownPublication, publish, type WriteContext } from '../src/writer.js'
import { admin, freshSchema, storedSeqs } from './helpers.js'
import { prepareSchema } from './stored.js'

const events = scriptedLog(1) as unknown as SessionEvent[]
const meta = { version: 0 as const, id: 's1', createdAt: 5 }

async function context(owner = 'writer-a'): Promise<WriteContext & { schema: string }> {
  const schema = freshSchema()
  await prepareSchema(schema)
  return { schema, pool: admin as never, tables: tablesOf(schema), owner, leaseMs: 10_000 }
}

describe('batch writes', () => {
  it('a publication retried after its answer was lost is recognised as its own and completed, never duplicated', async () => {
    const w = await context()
    expect(await publish(w, meta, events.slice(0, 3))).toBe('published')
    // The retry carries more events than the lost attempt stored (events joined the queue meanwhile).
    expect(await publish(w, meta, events.slice(0, 5))).toBe('exists')
    const stored = await ownPublication(w, meta, events.slice(0, 5))
    expect(stored).toBe(3)
    await append(w, 's1', 1, 3, events.slice(3, 5))
    expect(await storedSeqs(w.schema, 's1')).toEqual([0, 1, 2, 3, 4])
    expect(await ownPublication({ ...w, owner: 'someone-else' }, meta, events.slice(0, 5))).toBeUndefined()
  })

  it('an append retried after its answer was lost writes only what is missing', async () => {
    const w = await context()
    await publish(w, meta, events.slice(0, 2))
    await append(w, 's1', 1, 2, events.slice(2, 6))
    await append(w, 's1', 1, 2, events.slice(2, 9)) // 2..5 already stored: only 6..8 are written
    expect(await storedSeqs(w.schema, 's1')).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    const { rows } = await admin.query(`SELECT event_count FROM "${w.schema}".sessions WHERE id = 's1'`)
    expect(rows[0].event_count).toBe(9)
  })

  it('stored rows that differ from the retried batch are refused for good', async () => {
    const w = await context()
    await publish(w, meta, events.slice(0, 2))
    await append(w, 's1', 1, 2, events.slice(2, 4))
    const other = events.slice(2, 4).map((e) => ({ ...e, time: e.time + 1 }))
    const error = await append(w, 's1', 1, 2, other).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(FatalWriteError)
    expect((error as Error).message).toBe(
      'append seq mismatch for "s1": the database holds events at seqs 2..3 that this writer did not write',
    )
    expect(await storedSeqs(w.schema, 's1')).toEqual([0, 1, 2, 3])
  })

  it('a batch under a token that is no longer current writes nothing and names the new holder', async () => {
    const w = await context()
    await publish(w, meta, events.slice(0, 2))
    await admin.query(`UPDATE "${w.schema}".sessions SET lease_owner = 'writer-b', lease_token = 2 WHERE id = 's1'`)
    const error = (await append(w, 's1', 1, 2, events.slice(2, 4)).catch((e: unknown) => e)) as FatalWriteError
    expect(error.error).toBeInstanceOf(SessionLeaseLostError)
    expect(error.message).toBe(
      'session "s1": this process lost its lease (fencing token 1; "writer-b" holds it now with token 2); the batch of seqs 2..3 was rejected and nothing of it was written',
    )
    expect(await storedSeqs(w.schema, 's1')).toEqual([0, 1])
  })

  it('the primary key refuses a seq written twice even by a statement that skips the cursor check', async () => {
    const w = await context()
    await publish(w, meta, events.slice(0, 2))
    await expect(
      admin.query(`INSERT INTO "${w.schema}".events (session_id, seq, body) VALUES ('s1', 1, '{}')`),
    ).rejects.toThrow(/duplicate key/)
  })
})
