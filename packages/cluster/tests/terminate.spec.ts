import { afterEach, describe, expect, it } from 'vitest'
import { startFrontApp, startWorkerApp, type FrontApp, type WorkerApp } from './app.js'
import { admin, api, freshDb, openJobs, storedEvents, TOKEN } from './helpers.js'
import { checkLog } from './log-checks.js'
import { takeLogLines } from '../../../tests/support/logs.js'

const apps: (FrontApp | WorkerApp)[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.stop()))
})

/** Terminates every connection to the database except the test's own: the worker's, the front's, their LISTENs. */
async function cutEveryone(): Promise<number> {
  const { rows } = await admin.query(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name <> 'test-admin'
        AND backend_type = 'client backend'`,
  )
  return rows[0].n
}

describe('connections cut with pg_terminate_backend', () => {
  it('the worker and the front recover: the turn in flight and the next message are answered, the queue empties', async () => {
    const db = freshDb()
    const front = await startFrontApp(db, TOKEN)
    apps.push(front)
    const worker = await startWorkerApp(db, { latencyMs: 150 })
    apps.push(worker)
    const base = front.front.url
    expect((await api(base, '/sessions', { method: 'POST', body: JSON.stringify({ id: 'cut' }) })).status).toBe(201)
    const started = new Promise<void>((resolve) => worker.ctx.on('cluster/job-started', () => resolve()))
    const say = (text: string) =>
      api(base, '/sessions/cut/messages', { method: 'POST', body: JSON.stringify({ text, id: text }) })
    expect((await say('before')).status).toBe(202)
    await started
    await new Promise((resolve) => setTimeout(resolve, 100)) // into the model call
    expect(await cutEveryone()).toBeGreaterThan(3)

    // The front's next request may find a dead pooled connection; a client retries a 5xx.
    let status = 0
    for (let attempt = 0; attempt < 20 && status !== 202; attempt++) {
      status = (await say('after')).status
      if (status !== 202) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(status).toBe(202)
    await expect
      .poll(
        async () => {
          const report = checkLog('cut', await storedEvents(db, 'cut'))
          return { problems: report.problems, answered: [...report.answered].sort(), jobs: (await openJobs(db)).length }
        },
        { timeout: 60_000, interval: 200 },
      )
      .toEqual({ problems: [], answered: ['after', 'before'], jobs: 0 })
    // What the cut looked like from inside: warnings only, each naming the broken connection.
    const lines = takeLogLines()
    expect(lines.some((line) => line.startsWith('warn cluster: cluster: the LISTEN connection on'))).toBe(true)
    expect(lines.every((line) => /^warn (cluster|session-postgres): /.test(line))).toBe(true)
  })
})
