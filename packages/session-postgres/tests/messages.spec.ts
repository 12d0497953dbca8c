import { createUserMessage, holdSecrets, type UserMessage } from '@bridle/llm'
import type { SessionEvent } from '@bridle/session'
import type { ScriptedModelConfigInput } from '@bridle/plugin-scripted-model'
import { afterEach, describe, expect, it } from 'vitest'
import { admin, captureWarnings, freshSchema, makeApp, pgUrl } from './helpers.js'
import { AGENT, REPLY_TURNS, startWorker, type Worker } from './worker.js'

const workers: Worker[] = []
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()))
})

async function worker(schema: string, turns: ScriptedModelConfigInput['turns'] = REPLY_TURNS): Promise<Worker> {
  const w = await startWorker({ connectionString: pgUrl, schema, poolSize: 3, writeBatchMaxDelayMs: 5 }, { turns })
  workers.push(w)
  return w
}

/** The ids of posted/followed messages in the order the log inserted them. */
function insertedIds(events: readonly SessionEvent[]): string[] {
  return events
    .filter((e) => (e.type as string) === 'agent/inbox/spliced')
    .flatMap((e) => ((e.data as { inserted: UserMessage[] }).inserted ?? []).map((m) => m.id))
}

/** Starts an agent for `id` and lets it finish one prompted turn, so its session is stored. */
async function servedAgent(w: Worker, id: string) {
  const agent = w.ctx.agentLoop.create({ ...AGENT, sessionId: id })
  agent.followup(createUserMessage('hello'))
  await agent.whenIdle()
  await w.ctx.sessions.flush(agent.session)
  return agent
}

describe('post', () => {
  it('refuses what the inbox would refuse, before storing anything', async () => {
    const { persistence } = makeApp()
    const good = createUserMessage('hi')
    await expect(persistence.post('', good)).rejects.toThrow('post: the session id must be a non-empty string')
    await expect(persistence.post('s', good, 'later' as never)).rejects.toThrow(
      'post: target must be "next-turn" or "next-step", got "later"',
    )
    await expect(persistence.post('s', { ...good, id: '' } as never)).rejects.toThrow(
      'post: the message must have a non-empty string id',
    )
    await expect(persistence.post('s', { ...good, role: 'assistant' } as never)).rejects.toThrow(
      `post: message "${good.id}" must have role "user", got "assistant"`,
    )
    await expect(persistence.post('s', { ...good, source: undefined } as never)).rejects.toThrow(
      `post: message "${good.id}" message has invalid source`,
    )
    await expect(persistence.post('s', { ...good, content: [{ type: 'text' }] } as never)).rejects.toThrow(TypeError)
    await expect(persistence.post('s', { ...good, extra: Number.NaN } as never)).rejects.toThrow(
      `post: message "${good.id}" is not plain JSON at`,
    )
  })

  it('a session that is not stored is not found; re-posting an id is a no-op; another message under it is refused', async () => {
    const { ctx, persistence } = makeApp()
    const message = createUserMessage('hi')
    await expect(persistence.post('ghost', message)).rejects.toThrow('session "ghost" not found')
    const s = ctx.sessions.create('s1')
    s.append('turn/start', { turn: 1 })
    await ctx.sessions.flush(s)
    const first = await persistence.post('s1', message)
    expect(first).toEqual({ position: expect.stringMatching(/^\d+$/), duplicate: false })
    expect(await persistence.post('s1', message)).toEqual({ position: first.position, duplicate: true })
    await expect(persistence.post('s1', { ...message, content: [{ type: 'text', text: 'changed' }] })).rejects.toThrow(
      `message "${message.id}" was already posted to session "s1" with different content or target`,
    )
  })
})

describe('secrets', () => {
  it('a posted message and the session both store a held key as [redacted] (issue 38)', async () => {
    const key = `sk-posted-${Math.random().toString(36).slice(2, 12)}-key`
    holdSecrets(key)
    const { ctx, persistence, schema } = makeApp()
    const s = ctx.sessions.create('s2')
    s.append('user/message', createUserMessage(`first ${key}`), { surfaceOp: 'append' })
    await ctx.sessions.flush(s)
    await persistence.post('s2', createUserMessage(`my key is ${key}`))
    const rows = await admin.query(
      `SELECT (SELECT string_agg(body, '') FROM "${schema}".events) || (SELECT string_agg(body, '') FROM "${schema}".messages) AS text`,
    )
    const text = String(rows.rows[0].text)
    expect(text).toContain('my key is [redacted]')
    expect(text).toContain('first [redacted]')
    expect(text).not.toContain(key.slice(0, 12))
  })
})

describe('delivery to the lease holder', () => {
  it('a next-turn message runs a turn on the worker that serves the session; next-step steers', async () => {
    const schema = freshSchema()
    const w = await worker(schema)
    const agent = await servedAgent(w, 'chat')
    const poster = makeApp({}, schema)
    const followup = createUserMessage('from far away')
    await poster.persistence.post('chat', followup, 'next-turn')
    await expect.poll(() => insertedIds(agent.session.events), { timeout: 60_000 }).toContain(followup.id)
    await agent.whenIdle()
    const users = agent.session.events.filter((e) => e.type === 'user/message').map((e) => (e.data as UserMessage).id)
    expect(users).toContain(followup.id)
    const steer = createUserMessage('also this')
    await poster.persistence.post('chat', steer, 'next-step')
    await expect.poll(() => insertedIds(agent.session.events), { timeout: 60_000 }).toContain(steer.id)
    const splice = agent.session.events.find((e) => insertedIds([e]).includes(steer.id))!
    expect((splice.data as { target: string }).target).toBe('next-step')
    await agent.whenIdle()
    await w.ctx.sessions.flush(agent.session)
    const { rows } = await admin.query(`SELECT message_id, delivered_seq FROM "${schema}".messages ORDER BY pos`)
    expect(rows).toEqual([
      { message_id: followup.id, delivered_seq: expect.any(Number) },
      { message_id: steer.id, delivered_seq: splice.seq },
    ])
  })

  it('messages posted while nobody serves the session wait, and reach the agent of whoever resumes it, in order', async () => {
    const schema = freshSchema()
    const first = await worker(schema)
    await servedAgent(first, 'chat')
    await first.stop()
    workers.splice(workers.indexOf(first), 1)
    const poster = makeApp({}, schema)
    const messages = [createUserMessage('one'), createUserMessage('two'), createUserMessage('three')]
    for (const m of messages) await poster.persistence.post('chat', m, 'next-turn')
    const second = await worker(schema)
    const agent = await second.ctx.agentLoop.resume('chat', AGENT)
    await expect
      .poll(() => insertedIds(agent.session.events).slice(-3), { timeout: 60_000 })
      .toEqual(messages.map((m) => m.id))
    await expect
      .poll(
        async () =>
          (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".messages WHERE delivered_seq IS NULL`)).rows[0]
            .n,
        {
          timeout: 60_000,
        },
      )
      .toBe(0)
  })

  it('a resume reads the waiting messages once: the lease, the agent and deliver({ after }) share that read', async () => {
    const schema = freshSchema()
    const w = await worker(schema)
    const served = await servedAgent(w, 'chat')
    await served.dispose()
    const poster = makeApp({}, schema)
    const messages = [createUserMessage('one'), createUserMessage('two')]
    for (const m of messages) await poster.persistence.post('chat', m, 'next-turn')
    const pool = (w.persistence as unknown as { pool: { query: (...args: unknown[]) => unknown } }).pool
    const query = pool.query
    let reads = 0
    pool.query = function (this: unknown, ...args: unknown[]) {
      if (String(args[0]).includes('SELECT message_id, target, body')) reads++
      return query.apply(this, args)
    }
    try {
      const from = performance.now()
      const agent = await w.ctx.agentLoop.resume('chat', AGENT)
      await w.persistence.deliver('chat', { after: from })
      // in the inbox when deliver resolves, without polling
      expect(insertedIds(agent.session.events).slice(-2)).toEqual(messages.map((m) => m.id))
      await new Promise((r) => setTimeout(r, 50))
      expect(reads).toBe(1)
      // without `after`, a call asks for a read that starts after it
      await w.persistence.deliver('chat')
      expect(reads).toBe(2)
    } finally {
      pool.query = query
    }
  })

  it('repeated notifications never splice a message twice', async () => {
    const schema = freshSchema()
    const w = await worker(schema)
    const agent = await servedAgent(w, 'chat')
    const poster = makeApp({}, schema)
    const message = createUserMessage('once')
    await poster.persistence.post('chat', message, 'next-step')
    const channel = (w.persistence as unknown as { channel: string }).channel
    for (let i = 0; i < 5; i++) await admin.query(`SELECT pg_notify($1, $2)`, [channel, 'm:chat'])
    await expect.poll(() => insertedIds(agent.session.events), { timeout: 60_000 }).toContain(message.id)
    await new Promise((r) => setTimeout(r, 200))
    await agent.whenIdle()
    expect(insertedIds(agent.session.events).filter((id) => id === message.id)).toHaveLength(1)
  })

  it('a message whose id the log already holds is marked delivered, not spliced again', async () => {
    const schema = freshSchema()
    const w = await worker(schema)
    const agent = await servedAgent(w, 'chat')
    const taken = agent.session.events
      .filter((e) => e.type === 'user/message')
      .map((e) => (e.data as UserMessage).id)[0]!
    const poster = makeApp({}, schema)
    await poster.persistence.post('chat', { ...createUserMessage('dup'), id: taken } as never, 'next-step')
    const after = createUserMessage('after')
    await poster.persistence.post('chat', after, 'next-step')
    await expect.poll(() => insertedIds(agent.session.events), { timeout: 60_000 }).toContain(after.id)
    expect(insertedIds(agent.session.events).filter((id) => id === taken)).toHaveLength(1)
    await agent.whenIdle()
    await w.ctx.sessions.flush(agent.session)
    await expect
      .poll(
        async () =>
          (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".messages WHERE delivered_seq IS NULL`)).rows[0]
            .n,
        {
          timeout: 60_000,
        },
      )
      .toBe(0)
  })

  it('a stored message the agent cannot take (a row edited by hand) is marked rejected with the reason; the queue moves on', async () => {
    const warnings = captureWarnings()
    const schema = freshSchema()
    const w = await worker(schema)
    const agent = await servedAgent(w, 'chat')
    await admin.query(
      `INSERT INTO "${schema}".messages (session_id, message_id, target, body) VALUES ('chat', 'broken', 'next-step', '{not json')`,
    )
    const after = createUserMessage('after')
    await makeApp({}, schema).persistence.post('chat', after, 'next-step')
    await expect.poll(() => insertedIds(agent.session.events), { timeout: 60_000 }).toContain(after.id)
    const { rows } = await admin.query(`SELECT rejected FROM "${schema}".messages WHERE message_id = 'broken'`)
    expect(rows[0].rejected).toMatch(/^SyntaxError: /)
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^session-postgres: posted message "broken" for session "chat" was refused and dropped: SyntaxError/,
      ),
    )
  })
})
