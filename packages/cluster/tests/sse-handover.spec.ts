import { afterEach, describe, expect, it } from 'vitest'
import { startFrontApp, startWorkerApp, type FrontApp, type WorkerApp } from './app.js'
import { api, freshDb, storedEvents, TOKEN } from './helpers.js'
import { readEvents, type SseEvent } from './sse.js'

const apps: (FrontApp | WorkerApp)[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.stop()))
})

const auth = { authorization: `Bearer ${TOKEN}` }
const completedTurns = (events: readonly SseEvent[]) =>
  events.filter((e) => e.event === 'turn/end' && JSON.parse(e.data).data.reason.kind === 'completed').length

/** The worker that finishes the next job of `session` on `app`. */
const served = (app: WorkerApp, session: string) =>
  new Promise<void>((resolve) =>
    app.ctx.on('cluster/job-finished', (p) =>
      p.session === session && p.outcome !== 'failed' ? resolve() : undefined,
    ),
  )

describe('event streams while the worker serving a session changes', () => {
  it('a live stream and one resumed with Last-Event-ID each see every event once, in seq order', async () => {
    const db = freshDb()
    const front = await startFrontApp(db, TOKEN)
    apps.push(front)
    const base = front.front.url
    expect((await api(base, '/sessions', { method: 'POST', body: JSON.stringify({ id: 'relay' }) })).status).toBe(201)
    const say = (text: string) =>
      api(base, '/sessions/relay/messages', { method: 'POST', body: JSON.stringify({ text, id: text }) })

    // The live stream stays open from the start to the third answer.
    const live = readEvents(
      `${base}/sessions/relay/events`,
      auth,
      (e) => completedTurns([e]) > 0 && e.id !== undefined && isThird(e),
    )
    let answers = 0
    const isThird = (e: SseEvent) => completedTurns([e]) > 0 && ++answers === 3

    const first = await startWorkerApp(db)
    const firstDone = served(first, 'relay')
    expect((await say('one')).status).toBe(202)
    await firstDone
    // A second stream reads the first turn, then disconnects in the middle of the log.
    const partial = await readEvents(`${base}/sessions/relay/events`, auth, (e) => e.event === 'step/start')
    const lastSeen = partial.at(-1)!.id!
    await first.stop()

    const second = await startWorkerApp(db)
    apps.push(second)
    const secondDone = served(second, 'relay')
    expect((await say('two')).status).toBe(202)
    await secondDone
    await second.stop()
    apps.pop()

    const third = await startWorkerApp(db)
    apps.push(third)
    expect((await say('three')).status).toBe(202)
    const resumed = await readEvents(`${base}/sessions/relay/events`, { ...auth, 'last-event-id': lastSeen }, (e) =>
      completedTurns([e]) > 0 ? JSON.parse(e.data).data.turn === 3 : undefined,
    )
    const liveEvents = await live

    const stored = await storedEvents(db, 'relay')
    const seqs = (events: readonly SseEvent[]) => events.map((e) => Number(e.id))
    expect(seqs(liveEvents)).toEqual(stored.slice(0, liveEvents.length).map((e) => e.seq))
    expect(seqs(liveEvents)).toEqual(liveEvents.map((_, i) => i))
    expect(completedTurns(liveEvents)).toBe(3)
    expect(seqs([...partial, ...resumed])).toEqual([...partial, ...resumed].map((_, i) => i))
    expect(resumed.map((e) => e.data)).toEqual(
      stored.slice(Number(lastSeen) + 1, Number(lastSeen) + 1 + resumed.length).map((e) => JSON.stringify(e)),
    )
    // The front's creation marker, then one per takeover (the first resume of a log that ends in a marker adds none).
    expect(stored.filter((e) => e.type === 'session/end-seed').length).toBe(3)
  })
})
