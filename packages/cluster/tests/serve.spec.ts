import { afterEach, describe, expect, it } from 'vitest'
import { startFrontApp, startWorkerApp, type FrontApp, type WorkerApp } from './app.js'
import { api, freshDb, openJobs, storedEvents, TOKEN } from './helpers.js'
import { readEvents } from './sse.js'

const apps: (FrontApp | WorkerApp)[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.stop()))
})

describe('a front and a worker', () => {
  it('answers a posted message, streams its events live and leaves the queue empty', async () => {
    const db = freshDb()
    const front = await startFrontApp(db, TOKEN)
    apps.push(front)
    const worker = await startWorkerApp(db)
    apps.push(worker)
    const base = front.front.url
    const created = await api(base, '/sessions', { method: 'POST', body: JSON.stringify({ id: 'alpha', cwd: '/srv' }) })
    expect(created.status).toBe(201)
    expect(await created.json()).toEqual({ id: 'alpha' })
    const posted = await api(base, '/sessions/alpha/messages', {
      method: 'POST',
      body: JSON.stringify({ text: 'remember the milk', id: 'm-1' }),
    })
    expect(posted.status).toBe(202)
    expect(await posted.json()).toMatchObject({ session: 'alpha', message: 'm-1', duplicate: false, enqueued: true })
    const events = await readEvents(`${base}/sessions/alpha/events`, { authorization: `Bearer ${TOKEN}` }, (e) =>
      e.event === 'turn/end' ? true : undefined,
    )
    expect(events[0]).toMatchObject({ id: '0', event: 'session/end-seed' })
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i))
    const end = JSON.parse(events.at(-1)!.data)
    expect(end.data.reason.kind).toBe('completed')
    const stored = await storedEvents(db, 'alpha')
    const answer = stored.findLast((e) => e.type === 'assistant/message')
    expect(JSON.stringify(answer)).toContain('Noted: note 1: remember this.')
    await expect.poll(() => openJobs(db), { timeout: 10_000 }).toEqual([])
    const summary = await api(base, '/sessions/alpha')
    expect(summary.status).toBe(200)
    expect(await summary.json()).toMatchObject({ meta: { id: 'alpha', cwd: '/srv' }, turns: 1 })
  })
})
