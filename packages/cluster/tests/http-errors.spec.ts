import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFrontApp, type FrontApp } from './app.js'
import { admin, api, freshDb, openJobs, TOKEN } from './helpers.js'

const db = freshDb()
let front: FrontApp
const logged: string[] = []
beforeAll(async () => {
  front = await startFrontApp(db, TOKEN, { maxBodyBytes: 2_048, log: (line) => logged.push(line) })
  expect(
    (await api(front.front.url, '/sessions', { method: 'POST', body: JSON.stringify({ id: 'known' }) })).status,
  ).toBe(201)
})
afterAll(() => front.stop())

/** The stored messages and open jobs: what a refused request must not have added. */
async function leftovers() {
  const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${db.schema}".messages`)
  return { messages: rows[0].n, jobs: (await openJobs(db)).length }
}

const post = (path: string, body: string | undefined, init: { token?: string | null; type?: string } = {}) =>
  api(front.front.url, path, {
    method: 'POST',
    body,
    token: init.token,
    headers: init.type === undefined ? {} : { 'content-type': init.type },
  })

async function expectError(response: Response, status: number, exit: number, message: RegExp) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const body = (await response.json()) as { error: { message: string; exit: number; status: number } }
  expect(body.error.exit).toBe(exit)
  expect(body.error.status).toBe(status)
  expect(body.error.message).toMatch(message)
}

describe('the front refuses bad requests clearly and enqueues nothing', () => {
  it('401 without a token or with a wrong one, on the API and on the viewer; the token is never logged', async () => {
    await expectError(await post('/sessions/known/messages', '{"text":"hi"}', { token: null }), 401, 2, /bearer token/)
    await expectError(
      await post('/sessions/known/messages', '{"text":"hi"}', { token: 'wrong-token-0123456789' }),
      401,
      2,
      /bearer token/,
    )
    const viewer = await fetch(`${front.front.url}/api/sessions`)
    expect(viewer.status).toBe(401)
    expect(viewer.headers.get('www-authenticate')).toContain('Basic')
    const basic = await fetch(`${front.front.url}/api/sessions`, {
      headers: { authorization: `Basic ${Buffer.from(`anyone:${TOKEN}`).toString('base64')}` },
    })
    expect(basic.status).toBe(200)
    expect(await leftovers()).toEqual({ messages: 0, jobs: 0 })
    expect(logged.length).toBeGreaterThan(0)
    expect(logged.some((line) => line.includes(TOKEN) || line.includes('wrong-token'))).toBe(false)
  })

  it('404 for an unknown session: posting, reading, following', async () => {
    await expectError(await post('/sessions/nobody/messages', '{"text":"hi"}'), 404, 1, /^session "nobody" not found$/)
    await expectError(await api(front.front.url, '/sessions/nobody'), 404, 1, /not found/)
    await expectError(await api(front.front.url, '/sessions/nobody/events'), 404, 1, /not found/)
    await expectError(await api(front.front.url, '/nowhere'), 404, 1, /no such route/)
    expect(await leftovers()).toEqual({ messages: 0, jobs: 0 })
  })

  it('400 for a bad body, 415 for a body that is not JSON, 409 for a taken id', async () => {
    const cases: [string | undefined, RegExp][] = [
      ['{"text":', /not valid JSON/],
      ['[1,2]', /JSON object/],
      ['{"text":""}', /non-empty string/],
      ['{}', /exactly one of "text" and "content"/],
      ['{"text":"a","content":[]}', /exactly one of/],
      ['{"text":"a","target":"later"}', /target must be "next-turn" or "next-step"/],
      ['{"text":"a","colour":"red"}', /unknown field "colour"/],
      ['{"content":[{"type":"image"}]}', /content/],
      ['{"text":"a","id":"has space"}', /id must be/],
    ]
    for (const [body, message] of cases)
      await expectError(await post('/sessions/known/messages', body), 400, 2, message)
    await expectError(await post('/sessions/known/messages', 'text=hi', { type: 'text/plain' }), 415, 2, /must be JSON/)
    await expectError(await post('/sessions/bad%20id/messages', '{"text":"a"}'), 400, 2, /session id/)
    await expectError(await post('/sessions', '{"id":"known"}'), 409, 1, /already exists/)
    await expectError(await post('/sessions', '{"id":"fresh","message":{"text":""}}'), 400, 2, /message.text/)
    await expectError(await api(front.front.url, '/sessions/fresh'), 404, 1, /not found/)
    const events = await api(front.front.url, '/sessions/known/events', { headers: { 'last-event-id': 'abc' } })
    await expectError(events, 400, 2, /Last-Event-ID/)
    expect(await leftovers()).toEqual({ messages: 0, jobs: 0 })
  })

  it('413 for a message over the size limit, and nothing is stored', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(4_096) })
    await expectError(await post('/sessions/known/messages', big), 413, 2, /larger than 2048 bytes/)
    expect(await leftovers()).toEqual({ messages: 0, jobs: 0 })
  })

  it('a good message is stored once and enqueued once, even when posted twice with its id', async () => {
    const first = await post('/sessions/known/messages', '{"text":"hello","id":"once"}')
    expect(first.status).toBe(202)
    expect(await first.json()).toMatchObject({ duplicate: false, enqueued: true, target: 'next-turn' })
    const again = await post('/sessions/known/messages', '{"text":"hello","id":"once"}')
    expect(await again.json()).toMatchObject({ duplicate: true, enqueued: false })
    await expectError(await post('/sessions/known/messages', '{"text":"other","id":"once"}'), 409, 1, /already posted/)
    expect(await leftovers()).toEqual({ messages: 1, jobs: 1 })
  })
})
