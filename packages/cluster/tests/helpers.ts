import { randomBytes } from 'node:crypto'
import type { SessionEvent } from '@bridle/session'
import pg from 'pg'
import { afterAll, inject } from 'vitest'
import type { ClusterDb } from './app.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throwaway server's connection string (tests/global-setup.mjs). */
    pgUrl: string
  }
}

/** The throwaway server's connection string (tests/global-setup.mjs). */
export const pgUrl = inject('pgUrl')

/** One pool per test file for direct SQL. */
export const admin = new pg.Pool({ connectionString: pgUrl, max: 4, application_name: 'test-admin' })
admin.on('error', () => undefined)
afterAll(() => admin.end())

/** Fresh schemas, so tests never see each other's rows or jobs. */
export function freshDb(): ClusterDb {
  const tag = randomBytes(5).toString('hex')
  return { url: pgUrl, schema: `c_${tag}`, queueSchema: `q_${tag}` }
}

/** A token the tests use (long enough for the front). */
export const TOKEN = 'test-token-0123456789abcdef'

/** The stored events of a session, in seq order. */
export async function storedEvents(db: ClusterDb, id: string): Promise<SessionEvent[]> {
  const { rows } = await admin.query(`SELECT seq, body FROM "${db.schema}".events WHERE session_id = $1 ORDER BY seq`, [
    id,
  ])
  return rows.map((row: { seq: number; body: string }, index: number) => {
    if (row.seq !== index) throw new Error(`session "${id}": seq ${row.seq} stored at index ${index}`)
    return JSON.parse(row.body) as SessionEvent
  })
}

/** Jobs of the queue that are not finished (queued, retrying or active). */
export async function openJobs(db: ClusterDb): Promise<{ key: string; state: string }[]> {
  const { rows } = await admin.query(
    `SELECT singleton_key AS key, state::text FROM "${db.queueSchema}".job WHERE state < 'completed' ORDER BY created_on`,
  )
  return rows
}

/** A fetch with the bearer token (or the headers given). */
export function api(base: string, path: string, init: RequestInit & { token?: string | null } = {}) {
  const headers = new Headers(init.headers)
  if (init.token !== null) headers.set('authorization', `Bearer ${init.token ?? TOKEN}`)
  if (init.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json')
  return fetch(base + path, { ...init, headers })
}
