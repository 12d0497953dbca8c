import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { tablesOf } from '../src/database.js'
import { migrate, SCHEMA_VERSION } from '../src/migrations.js'
import { admin, captureWarnings, freshSchema, makeApp, pgUrl } from './helpers.js'

describe('schema and migrations', () => {
  it('creates the schema on start; running again changes nothing', async () => {
    const schema = freshSchema()
    await migrate(admin as never, tablesOf(schema), schema)
    await migrate(admin as never, tablesOf(schema), schema)
    const { rows } = await admin.query(`SELECT version FROM "${schema}".migrations ORDER BY version`)
    expect(rows.map((r: { version: number }) => r.version)).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
    )
    const tables = await admin.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
      [schema],
    )
    expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual([
      'events',
      'messages',
      'migrations',
      'sessions',
    ])
  })

  it('many starts at once serialize on the advisory lock: one schema, each migration applied once', async () => {
    const schema = freshSchema()
    const pools = Array.from({ length: 6 }, () => new pg.Pool({ connectionString: pgUrl, max: 1 }))
    try {
      await Promise.all(pools.map((pool) => migrate(pool as never, tablesOf(schema), schema)))
      const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".migrations`)
      expect(rows[0].n).toBe(SCHEMA_VERSION)
    } finally {
      await Promise.all(pools.map((pool) => pool.end()))
    }
  })

  it('a schema at a newer version is refused, and every operation rejects with that error', async () => {
    const schema = freshSchema()
    await migrate(admin as never, tablesOf(schema), schema)
    await admin.query(`INSERT INTO "${schema}".migrations (version) VALUES ($1)`, [SCHEMA_VERSION + 1])
    const message = `session-postgres: schema "${schema}" is at version ${SCHEMA_VERSION + 1}, newer than this build supports (${SCHEMA_VERSION}); upgrade the harness`
    await expect(migrate(admin as never, tablesOf(schema), schema)).rejects.toThrow(message)
    captureWarnings()
    const { ctx, persistence } = makeApp({}, schema)
    await expect(persistence.list()).rejects.toThrow(message)
    await expect(persistence.load('x')).rejects.toThrow(message)
    const s = ctx.sessions.create('x')
    s.append('turn/start', { turn: 1 })
    await expect(ctx.sessions.flush(s)).rejects.toThrow(message)
  })
})
