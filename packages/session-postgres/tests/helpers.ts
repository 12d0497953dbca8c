import { randomBytes } from 'node:crypto'
import { SessionStore, type Session } from '@bridle/session'
import { Context, Logger } from 'cordis'
import pg from 'pg'
import { afterAll, afterEach, inject } from 'vitest'
import { SessionPostgres, type SessionPostgresConfigInput } from '../src/index.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throwaway server's connection string (tests/global-setup.mjs). */
    pgUrl: string
  }
}

/** The throwaway server's connection string (tests/global-setup.mjs). */
export const pgUrl = inject('pgUrl')

/** One pool per test file for direct SQL (seeding rows, checking what was stored). */
export const admin = new pg.Pool({ connectionString: pgUrl, max: 4 })
admin.on('error', () => undefined)
afterAll(() => admin.end())

/** A fresh schema name, so tests never see each other's rows. */
export function freshSchema(): string {
  return `t_${randomBytes(6).toString('hex')}`
}

export interface App {
  ctx: Context
  schema: string
  persistence: SessionPostgres
  /** Disposes the plugin and waits until it has stopped (flushed, leases released, connections closed). */
  stop(): Promise<void>
}

const running: App[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.stop()))
})

/** A cordis app with `SessionStore` and `SessionPostgres` over `schema` (fresh by default). */
export function makeApp(config: SessionPostgresConfigInput = {}, schema = config.schema ?? freshSchema()): App {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  const fork = ctx.plugin(SessionPostgres, { connectionString: pgUrl, poolSize: 4, ...config, schema })
  const persistence = ctx.get('sessionPersistence') as SessionPostgres | undefined
  if (persistence === undefined) throw new Error('sessionPersistence did not start')
  let stopping: Promise<void> | undefined
  const app: App = {
    ctx,
    schema,
    persistence,
    stop: () => {
      stopping ??= (async () => {
        fork.dispose()
        await persistence.whenStopped()
      })()
      return stopping
    },
  }
  running.push(app)
  return app
}

/**
 * Captures `session-postgres` warnings for the current test. The logger's level for the package is lowered so the
 * captured lines do not also print; the target records them at its own level.
 */
export function captureWarnings(): string[] {
  const seen: string[] = []
  const target = {
    levels: { base: 2 },
    record(record: { name: string; type: string; content: string }) {
      if (record.name === 'session-postgres' && record.type === 'warn') seen.push(record.content)
    },
  }
  ;(Logger.targets as unknown[]).push(target)
  const levels = Logger.levels as Record<string, unknown>
  const previous = levels['session-postgres']
  levels['session-postgres'] = 1
  afterEach(() => {
    const targets = Logger.targets as unknown[]
    const index = targets.indexOf(target)
    if (index >= 0) targets.splice(index, 1)
    if (previous === undefined) delete levels['session-postgres']
    else levels['session-postgres'] = previous
  })
  return seen
}

/** The seqs stored for a session, in order. */
export async function storedSeqs(schema: string, id: string): Promise<number[]> {
  const { rows } = await admin.query(`SELECT seq FROM "${schema}".events WHERE session_id = $1 ORDER BY seq`, [id])
  return rows.map((row: { seq: number }) => row.seq)
}

/** Replays scripted appends on a live session. */
export function replay(session: Session, appends: readonly { type: string; data: unknown; opts?: object }[]): void {
  for (const a of appends) session.append(a.type as never, a.data as never, a.opts as never)
}
