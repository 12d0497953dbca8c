import { createUserMessage } from '@bridle/llm'
import type { SessionPostgres } from '@bridle/session-postgres'
import pg from 'pg'
import type PgBoss from 'pg-boss'
import { afterEach, describe, expect, it } from 'vitest'
import { createBoss } from '../src/boss.js'
import { clusterNames, type SessionJobData } from '../src/names.js'
import { prepared } from '../src/prepared.js'
import { SessionQueue } from '../src/queue.js'
import { startFrontApp, type FrontApp } from './app.js'
import { admin, api, freshDb, openJobs, TOKEN } from './helpers.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A front (which installs the schemas and the queue) and a queue of our own over the same database. */
async function setup() {
  const db = freshDb()
  const front: FrontApp = await startFrontApp(db, TOKEN)
  cleanups.push(() => front.stop())
  const pool = new pg.Pool({ connectionString: db.url, max: 3 })
  cleanups.push(() => pool.end())
  const names = clusterNames(db.schema, db.queueSchema, 'bridle-sessions')
  const errors: unknown[] = []
  const boss = createBoss(
    pool,
    names,
    { supervise: false, maintenanceIntervalSeconds: 60, pollingIntervalSeconds: 2 },
    () => false,
    (error) => errors.push(error),
  )
  await boss.start()
  cleanups.push(() => boss.stop({ graceful: false, close: false, wait: true }))
  const queue = new SessionQueue(pool, boss, names)
  /** Takes the next job as a worker's loop would: it becomes active. */
  const take = async () => {
    const [job] = (await boss.fetch<SessionJobData>(names.queue, { includeMetadata: true })) as
      | PgBoss.JobWithMetadata<SessionJobData>[]
      | []
    if (job === undefined) throw new Error('no job to take')
    return { id: job.id, retryCount: job.retryCount, session: job.data.session }
  }
  const jobState = async (id: string) =>
    (await admin.query(`SELECT state::text FROM "${db.queueSchema}".job WHERE id = $1`, [id])).rows[0]?.state
  return { db, front, boss, names, queue, take, jobState, errors }
}

describe('SessionQueue', () => {
  it('enqueues one job per session and completes it fenced by its activation, whatever the session id holds', async () => {
    const { db, queue, take, jobState } = await setup()
    const session = `o'brien \\ "x"; SELECT 1 --`
    const id = await queue.enqueue(session)
    expect(id).toEqual(expect.any(String))
    expect(await queue.enqueue(session)).toBeUndefined() // one open job per session
    const job = await take()
    expect(job).toEqual({ id, retryCount: 0, session })
    // Another activation of the same job (it expired and was retried elsewhere) is not this holder's to complete.
    expect(await queue.finish({ ...job, retryCount: 1 })).toBe('lost')
    expect(await jobState(id!)).toBe('active')
    expect(await queue.finish(job)).toBe('completed')
    expect(await jobState(id!)).toBe('completed')
    expect(await openJobs(db)).toEqual([])
  })

  it('enqueues the next job in the completing transaction when messages wait that no agent took', async () => {
    const { db, front, queue, take } = await setup()
    const base = front.front.url
    expect((await api(base, '/sessions', { method: 'POST', body: JSON.stringify({ id: 'alpha' }) })).status).toBe(201)
    await queue.enqueue('alpha')
    const job = await take()
    // A message posted while the job is active: the front's enqueue finds the open job and adds none.
    const persistence = front.ctx.get('sessionPersistence') as SessionPostgres
    await persistence.post('alpha', createUserMessage('a late question'))
    expect(await queue.enqueue('alpha')).toBeUndefined()
    expect(await queue.finish(job)).toBe('requeued')
    expect(await openJobs(db)).toEqual([{ key: 'alpha', state: 'created' }])
  })

  it("answers pg-boss's own completion by id without touching the job: the handler settles every job", async () => {
    const { boss, names, queue, take, jobState } = await setup()
    const id = await queue.enqueue('beta')
    await take()
    await boss.complete(names.queue, id!)
    expect(await jobState(id!)).toBe('active')
  })

  it('shares one answer to "do jobs wait?" while it is younger than the age asked for', async () => {
    const { queue } = await setup()
    const first = queue.jobsWaiting(60_000)
    expect(queue.jobsWaiting(60_000)).toBe(first)
    expect(await first).toBe(false)
    await queue.enqueue('gamma')
    expect(await queue.jobsWaiting(60_000)).toBe(false) // the shared answer, from before the enqueue
    expect(await queue.jobsWaiting()).toBe(true)
  })
})

describe('prepared', () => {
  it('names a statement by its text: the same text the same name, another text another', () => {
    const a = prepared('SELECT $1::int', [1])
    expect(prepared('SELECT $1::int', [2])).toEqual({ name: a.name, text: 'SELECT $1::int', values: [2] })
    expect(prepared('SELECT $1::text', ['x']).name).not.toBe(a.name)
    expect(a.name).toMatch(/^bridle_[0-9a-f]{24}$/)
  })
})
