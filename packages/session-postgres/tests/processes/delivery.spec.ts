/**
 * Messages from anywhere, with real processes: two worker processes serve four agents each; four poster processes
 * post 1,000 messages between them (half follow-ups, half steering) round-robin to the eight sessions, each poster
 * in its own order. Every message must reach its session's log exactly once, and each poster's messages must appear
 * in every session in the order that poster posted them.
 */
import { fileURLToPath } from 'node:url'
import type { UserMessage } from '@bridle/llm'
import type { SessionEvent } from '@bridle/session'
import { beforeAll, describe, expect, it } from 'vitest'
import { admin, freshSchema, pgUrl } from '../helpers.js'
import { prepareSchema } from '../stored.js'
import { buildChild } from '../../../../tests/support/build-child.js'
import { spawnChild } from './spawn.js'

let bundle: string
beforeAll(async () => {
  bundle = await buildChild(fileURLToPath(new URL('./child.ts', import.meta.url)), { bundleDependencies: true })
}, 120_000)

const TOTAL = 1_000
const SENDERS = 4

describe('1,000 messages from 4 processes to agents served by 2 workers', () => {
  it('each arrives exactly once, in per-sender order', async () => {
    const schema = freshSchema()
    await prepareSchema(schema)
    const served = [0, 1].map((w) => Array.from({ length: 4 }, (_, i) => `agent-${w}-${i}`))
    const sessions = served.flat()
    const workers = served.map((ids) => spawnChild(bundle, 'server', { url: pgUrl, schema, sessions: ids }))
    await Promise.all(workers.map((worker) => worker.waitFor((line) => line === 'serving', 180_000)))

    const posters = Array.from({ length: SENDERS }, (_, s) =>
      spawnChild(bundle, 'poster', { url: pgUrl, schema, sender: `p${s}`, sessions, count: TOTAL / SENDERS }),
    )
    for (const poster of posters) {
      await poster.waitFor((line) => line === 'done', 300_000)
      const exit = await poster.exit
      expect(exit.code, exit.stderr).toBe(0)
    }
    await expect
      .poll(
        async () =>
          (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".messages WHERE delivered_seq IS NULL`)).rows[0]
            .n,
        {
          timeout: 300_000,
          interval: 250,
        },
      )
      .toBe(0)
    for (const worker of workers) worker.process.kill('SIGTERM')
    for (const worker of workers) {
      const exit = await worker.exit
      expect(exit.code, exit.stderr).toBe(0)
    }

    const { rows: counts } = await admin.query(
      `SELECT count(*)::int AS n, count(rejected)::int AS rejected FROM "${schema}".messages`,
    )
    expect(counts[0]).toEqual({ n: TOTAL, rejected: 0 })
    const arrivals = new Map<string, number>()
    for (const id of sessions) {
      const { rows } = await admin.query(`SELECT body FROM "${schema}".events WHERE session_id = $1 ORDER BY seq`, [id])
      const events = rows.map((row: { body: string }) => JSON.parse(row.body) as SessionEvent)
      const inserted = events
        .filter((e) => (e.type as string) === 'agent/inbox/spliced')
        .flatMap((e) => (e.data as { inserted: UserMessage[] }).inserted.map((m) => m.id as string))
        .filter((mid) => /^p\d-\d+$/.test(mid))
      for (const mid of inserted) arrivals.set(mid, (arrivals.get(mid) ?? 0) + 1)
      for (let s = 0; s < SENDERS; s++) {
        const mine = inserted.filter((mid) => mid.startsWith(`p${s}-`)).map((mid) => Number(mid.split('-')[1]))
        expect(mine, `sender p${s} in ${id}`).toEqual([...mine].sort((a, b) => a - b))
        expect(mine.every((i) => sessions[i % sessions.length] === id)).toBe(true)
      }
    }
    expect(arrivals.size).toBe(TOTAL)
    expect([...arrivals.values()].every((n) => n === 1)).toBe(true)
  }, 900_000)
})
