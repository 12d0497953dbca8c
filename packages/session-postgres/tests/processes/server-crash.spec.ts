/**
 * The database itself dies: a writer runs an agent against its own throwaway server, which is stopped with
 * `pg_ctl stop -m immediate` mid-run and started again. The writer must report a clear error, retry, and finish; the
 * log must have no gap and no duplicate, hold every event the writer had reported durable, equal the writer's own
 * events, and verify.
 */
import { fileURLToPath } from 'node:url'
import { createHash } from 'node:crypto'
import { verifyDigests, type SessionEvent } from '@bridle/session'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildChild } from '../../../../tests/support/build-child.js'
import { spawnChild } from './spawn.js'
import { startServer, type TestServer } from '@bridle/test-postgres'

let bundle: string
let server: TestServer
beforeAll(async () => {
  ;[bundle, server] = await Promise.all([
    buildChild(fileURLToPath(new URL('./child.ts', import.meta.url)), { bundleDependencies: true }),
    startServer({ own: true }),
  ])
}, 180_000)
afterAll(async () => {
  await server?.stop()
})

describe('the database is stopped with pg_ctl stop -m immediate mid-run', () => {
  it('the writer reports the outage, retries, and the log has no gap, no duplicate and no lost durable event', async () => {
    const child = spawnChild(bundle, 'writer', {
      url: server.url,
      schema: 'crash',
      session: 'outage',
      label: 'W',
      prompts: 12,
      delayMs: 2,
    })
    await child.waitFor((line) => line.startsWith('ready '), 120_000)
    let steps = 0
    await child.waitFor((line) => line.startsWith('durable ') && ++steps >= 8, 120_000)
    await server.crash()
    const durableAtCrash = Math.max(
      ...child.lines.filter((l) => l.startsWith('durable ')).map((l) => Number(l.split(' ')[1])),
    )
    await child.waitFor((line) => /^(error|retry|warn) .*the database is unreachable/.test(line), 120_000)
    await new Promise((r) => setTimeout(r, 500))
    await server.restart()
    const final = await child.waitFor((line) => line.startsWith('final '), 180_000)
    const exit = await child.exit
    expect(exit.code, exit.stderr).toBe(0)
    expect(
      child.lines.some((line) =>
        /^warn session-postgres: the database is unreachable \(.+\); session "outage" keeps its \d+ unwritten events? queued and retries$/.test(
          line,
        ),
      ),
    ).toBe(true)
    expect(child.lines).toContain('warn session-postgres: session "outage" is written again; the database is back')

    const client = new pg.Client({ connectionString: server.url })
    await client.connect()
    try {
      const { rows } = await client.query(`SELECT seq, body FROM crash.events WHERE session_id = 'outage' ORDER BY seq`)
      const events = rows.map((row: { body: string }) => JSON.parse(row.body) as SessionEvent)
      expect(rows.map((row: { seq: number }) => row.seq)).toEqual(rows.map((_: unknown, i: number) => i))
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i))
      expect(events.length).toBeGreaterThanOrEqual(durableAtCrash)
      const [, count, digest] = final.split(' ')
      expect(events.length).toBe(Number(count))
      expect(
        createHash('sha256')
          .update(rows.map((row: { body: string }) => row.body + '\n').join(''))
          .digest('hex'),
      ).toBe(digest)
      expect(verifyDigests(events).filter((row) => !row.ok)).toEqual([])
      const head = await client.query(`SELECT event_count FROM crash.sessions WHERE id = 'outage'`)
      expect(head.rows[0].event_count).toBe(events.length)
    } finally {
      await client.end()
    }
  }, 600_000)
})
