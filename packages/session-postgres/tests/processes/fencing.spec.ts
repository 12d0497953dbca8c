/**
 * Fencing with real processes: writer A runs an agent over a session with a short lease; A is paused with SIGSTOP
 * past its lease; writer B resumes the session (it waits for the lease to expire) and writes its own turns; then A
 * is woken with SIGCONT. A's next batch must be refused by the fencing token — A reports the lost lease and stops —
 * and the log must hold only B's events after the takeover.
 */
import { fileURLToPath } from 'node:url'
import { verifyDigests, type SessionEvent } from '@bridle/session'
import { beforeAll, describe, expect, it } from 'vitest'
import { admin, freshSchema, pgUrl } from '../helpers.js'
import { prepareSchema } from '../stored.js'
import { buildChild } from '../../../../tests/support/build-child.js'
import { spawnChild } from './spawn.js'

let bundle: string
beforeAll(async () => {
  bundle = await buildChild(fileURLToPath(new URL('./child.ts', import.meta.url)), { bundleDependencies: true })
}, 120_000)

const textOf = (event: SessionEvent) =>
  ((event.data as { content?: { type: string; text?: string }[] }).content ?? [])
    .map((block) => block.text ?? '')
    .join('')

describe('two writers contend for one session', () => {
  it('the writer paused past its lease has its next batch refused; after the takeover the log holds only the new owner', async () => {
    const schema = freshSchema()
    await prepareSchema(schema)
    const config = (label: string, prompts: number) => ({
      url: pgUrl,
      schema,
      session: 'contended',
      label,
      prompts,
      leaseMs: 1_000,
      leaseWaitMs: 60_000,
      delayMs: 2,
    })
    const a = spawnChild(bundle, 'writer', config('A', 100_000))
    await a.waitFor((line) => line.startsWith('ready '), 120_000)
    let steps = 0
    await a.waitFor((line) => line.startsWith('durable ') && ++steps >= 6, 120_000)
    a.process.kill('SIGSTOP')
    const stoppedAt = Date.now()
    try {
      const b = spawnChild(bundle, 'writer', config('B', 3))
      await b.waitFor((line) => line.startsWith('final '), 180_000)
      expect((await b.exit).code).toBe(0)
      expect(Date.now() - stoppedAt).toBeGreaterThan(1_000) // B could only start after A's lease expired
    } finally {
      a.process.kill('SIGCONT')
    }
    const lost = await a.waitFor((line) => line.startsWith('lost '), 120_000)
    expect(lost).toMatch(
      /^lost SessionLeaseLostError: session "contended": this process lost its lease \(fencing token 1; /,
    )
    expect(lost).toMatch(/the batch of seqs \d+\.\.\d+ was rejected and nothing of it was written$/)
    expect((await a.exit).code).toBe(3)

    const { rows } = await admin.query(
      `SELECT seq, body FROM "${schema}".events WHERE session_id = 'contended' ORDER BY seq`,
    )
    const events = rows.map((row: { body: string }) => JSON.parse(row.body) as SessionEvent)
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i))
    const takeover = events.findIndex((e) => e.type === 'session/end-seed')
    expect(takeover).toBeGreaterThan(0)
    const prompts = events.filter((e) => e.type === 'user/message' && e.seq > takeover).map(textOf)
    expect(prompts).toEqual(['B: note 1', 'B: note 2', 'B: note 3'])
    expect(events.slice(takeover).filter((e) => textOf(e).startsWith('A:'))).toEqual([])
    expect(verifyDigests(events).filter((row) => !row.ok)).toEqual([])
    const lease = await admin.query(
      `SELECT lease_owner, lease_token::int AS token FROM "${schema}".sessions WHERE id = 'contended'`,
    )
    expect(lease.rows[0]).toEqual({ lease_owner: null, token: 2 })
  }, 600_000)
})
