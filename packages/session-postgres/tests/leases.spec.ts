import { describe, expect, it } from 'vitest'
import { SessionLeasedError, SessionLeaseLostError } from '../src/index.js'
import { admin, captureWarnings, makeApp, storedSeqs } from './helpers.js'

async function leaseRow(schema: string, id: string) {
  const { rows } = await admin.query(
    `SELECT lease_owner, lease_token::int AS token, (extract(epoch FROM lease_expires - now()) * 1000)::float8 AS remaining
       FROM "${schema}".sessions WHERE id = $1`,
    [id],
  )
  return rows[0] as { lease_owner: string | null; token: number; remaining: number | null }
}

/** Makes a lease look expired, as if its holder had been paused past the expiry. */
const expire = (schema: string, id: string) =>
  admin.query(`UPDATE "${schema}".sessions SET lease_expires = now() - interval '1 second' WHERE id = $1`, [id])

async function written(app: ReturnType<typeof makeApp>, id: string, turns: number[]) {
  const s = app.ctx.sessions.create(id)
  for (const turn of turns) {
    s.append('turn/start', { turn })
    s.append('turn/end', { turn, reason: { kind: 'completed' } })
  }
  await app.ctx.sessions.flush(s)
  return s
}

describe('one writer per session', () => {
  it('publishing a session takes its lease (token 1); retiring the session gives it back', async () => {
    const a = makeApp()
    const fork = a.ctx.plugin({
      inject: ['sessions'],
      apply: (c: typeof a.ctx) => {
        const s = c.sessions.create('s1')
        s.append('turn/start', { turn: 1 })
        s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
      },
    })
    await a.persistence.load('s1') // flushed by the live session
    expect(await leaseRow(a.schema, 's1')).toMatchObject({ lease_owner: a.persistence.ownerId, token: 1 })
    fork.dispose()
    await a.persistence.inspect('s1') // waits for the retirement
    expect(await leaseRow(a.schema, 's1')).toMatchObject({ lease_owner: null, token: 1, remaining: null })
  })

  it('a second resumer gets SessionLeasedError naming the holder, expiry and token', async () => {
    const a = makeApp()
    await written(a, 's1', [1])
    const b = makeApp({}, a.schema)
    const error = (await b.persistence.resume('s1').catch((e: unknown) => e)) as SessionLeasedError
    expect(error).toBeInstanceOf(SessionLeasedError)
    expect(error).toMatchObject({
      name: 'SessionLeasedError',
      sessionId: 's1',
      holder: a.persistence.ownerId,
      token: 1,
    })
    expect(error.expiresAt.getTime()).toBeGreaterThan(Date.now() - 60_000)
    expect(error.message).toBe(
      `session "s1" is leased by "${a.persistence.ownerId}" until ${error.expiresAt.toISOString()} (fencing token 1): another process is writing it; resume it after the lease expires, or set leaseWaitMs to wait for it`,
    )
    expect(b.ctx.sessions.get('s1')).toBeUndefined()
    // The holder is undisturbed.
    expect((await leaseRow(a.schema, 's1')).lease_owner).toBe(a.persistence.ownerId)
  })

  it('a resumer that waits gets the session as soon as the holder lets it go, with a higher fencing token', async () => {
    const a = makeApp()
    await written(a, 's1', [1])
    const b = makeApp({ leaseWaitMs: 60_000 }, a.schema)
    const waiting = b.persistence.resume('s1')
    await new Promise((r) => setTimeout(r, 100))
    await a.stop() // flushes, releases the lease and notifies the waiter
    const session = await waiting
    session.append('turn/start', { turn: 2 })
    await b.ctx.sessions.flush(session)
    expect(await leaseRow(a.schema, 's1')).toMatchObject({ lease_owner: b.persistence.ownerId, token: 2 })
    expect(await storedSeqs(a.schema, 's1')).toEqual([0, 1, 2, 3])
  })

  it('a waiter gives up after its wait with SessionLeasedError saying how long it waited', async () => {
    const a = makeApp()
    await written(a, 's1', [1])
    const b = makeApp({}, a.schema)
    const error = (await b.persistence.resume('s1', undefined, { waitMs: 150 }).catch((e: unknown) => e)) as Error
    expect(error).toBeInstanceOf(SessionLeasedError)
    expect(error.message).toMatch(/\(fencing token 1\) \(waited \d+ ms\): another process is writing it/)
  })

  it('the lease is renewed while the session is live', async () => {
    const a = makeApp({ leaseMs: 300 })
    await written(a, 's1', [1])
    const expiresAt = async () =>
      Number(
        (
          await admin.query(
            `SELECT extract(epoch FROM lease_expires) * 1000 AS at FROM "${a.schema}".sessions WHERE id = 's1'`,
          )
        ).rows[0].at,
      )
    const first = await expiresAt()
    // Nothing is written any more: only the renewal can move the expiry on.
    await expect.poll(expiresAt, { timeout: 20_000 }).toBeGreaterThan(first)
    expect(await leaseRow(a.schema, 's1')).toMatchObject({ lease_owner: a.persistence.ownerId, token: 1 })
  })

  it('after the holder is gone and its lease expired, another app resumes from the committed events', async () => {
    const a = makeApp({ writeBatchMaxDelayMs: 1_000_000 })
    const s = await written(a, 's1', [1])
    s.append('turn/start', { turn: 2 }) // never flushed: the "process" dies with it
    await expire(a.schema, 's1')
    const b = makeApp({}, a.schema)
    const resumed = await b.persistence.resume('s1')
    expect(resumed.events.map((e) => e.type)).toEqual(['turn/start', 'turn/end', 'session/end-seed'])
    expect(await leaseRow(a.schema, 's1')).toMatchObject({ lease_owner: b.persistence.ownerId, token: 2 })
  })

  it('a writer that lost its lease has its next batch refused by the fencing token; only the new owner writes after the takeover', async () => {
    const warnings = captureWarnings()
    const a = makeApp({ writeBatchMaxDelayMs: 1_000_000 })
    const stale = await written(a, 's1', [1])
    await expire(a.schema, 's1') // a paused past its expiry
    const b = makeApp({ writeBatchMaxDelayMs: 1_000_000 }, a.schema)
    const owner = await b.persistence.resume('s1')
    owner.append('turn/start', { turn: 2 })
    await b.ctx.sessions.flush(owner)

    stale.append('turn/start', { turn: 2 })
    stale.append('turn/end', { turn: 2, reason: { kind: 'completed' } })
    const error = (await a.ctx.sessions.flush(stale).catch((e: unknown) => e)) as SessionLeaseLostError
    expect(error).toBeInstanceOf(SessionLeaseLostError)
    expect(error.message).toBe(
      `session "s1": this process lost its lease (fencing token 1; "${b.persistence.ownerId}" holds it now with token 2); the batch of seqs 2..3 was rejected and nothing of it was written`,
    )
    expect(error).toMatchObject({ sessionId: 's1', token: 1, holder: b.persistence.ownerId, currentToken: 2 })
    // The stale writer stays refused; the log holds only the new owner's events after the takeover.
    stale.append('turn/start', { turn: 3 })
    await expect(a.ctx.sessions.flush(stale)).rejects.toBe(error)
    const { rows } = await admin.query(
      `SELECT seq, body FROM "${a.schema}".events WHERE session_id = 's1' ORDER BY seq`,
    )
    expect(rows.map((r: { body: string }) => JSON.parse(r.body).type)).toEqual([
      'turn/start',
      'turn/end',
      'session/end-seed',
      'turn/start',
    ])
    expect(JSON.parse(rows[3].body)).toEqual(JSON.parse(JSON.stringify(owner.events[3])))
    void warnings
  })

  it('the renewal notices a lost lease and says so once', async () => {
    const warnings = captureWarnings()
    const a = makeApp({ leaseMs: 200 })
    await written(a, 's1', [1])
    await admin.query(
      `UPDATE "${a.schema}".sessions SET lease_owner = 'someone-else', lease_token = lease_token + 1 WHERE id = 's1'`,
    )
    await expect
      .poll(() => warnings, { timeout: 30_000 })
      .toContain(
        'session-postgres: session "s1" lost its lease (fencing token 1) to another process; its next write will be refused',
      )
  })

  it('load repairs a stored session only under the lease: refused while another process holds it', async () => {
    const a = makeApp()
    const s = a.ctx.sessions.create('s1')
    s.append('turn/start', { turn: 1 })
    await a.ctx.sessions.flush(s) // an open turn, written by a live holder
    const b = makeApp({}, a.schema)
    await expect(b.persistence.load('s1')).rejects.toBeInstanceOf(SessionLeasedError)
    expect((await b.persistence.inspect('s1')).events.map((e) => e.type)).toEqual(['turn/start', 'turn/end']) // closers in memory
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
    await a.ctx.sessions.flush(s)
    expect((await b.persistence.load('s1')).events).toEqual(s.events) // balanced: no lease needed
  })
})
