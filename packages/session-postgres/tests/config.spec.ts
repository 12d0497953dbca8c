import { ConfigError } from '@bridle/llm'
import { SessionStore } from '@bridle/session'
import { Context } from 'cordis'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import DefaultExport, { Config, ConfigSchema, SessionPostgres } from '../src/index.js'
import { captureWarnings, freshSchema, makeApp, pgUrl } from './helpers.js'

describe('plugin exports and config', () => {
  it('SessionPostgres is the named and default export; Config is SessionPostgres.Config; inject names sessions', () => {
    expect(DefaultExport).toBe(SessionPostgres)
    expect(SessionPostgres.Config).toBe(Config)
    expect(SessionPostgres.inject).toContain('sessions')
    expect(ConfigSchema.parse({})).toEqual({
      schema: 'bridle',
      poolSize: 10,
      writeBatchMaxDelayMs: 200,
      checkpoints: true,
      extraEventTypes: [],
      leaseMs: 30_000,
      leaseWaitMs: 0,
    })
  })

  it('refuses a key=value connection string without echoing it (node-postgres would send it as the database name)', () => {
    const text = 'host=db.internal user=bob password=hunter2-secret-value dbname=app'
    const error = (() => {
      try {
        Config({ connectionString: text })
      } catch (e) {
        return e as Error
      }
    })()
    expect(error).toBeInstanceOf(ConfigError)
    expect(error?.message).toMatch(
      /connectionString: expected a postgres:\/\/ URL \(node-postgres does not read key=value/,
    )
    expect(error?.message).not.toContain('hunter2')
    expect(() => Config({ connectionString: ' dbname = app' })).toThrow(ConfigError)
    for (const ok of ['postgres://bob:pw@db/app', 'postgresql://db/app?sslmode=require', '/var/run/postgresql app'])
      expect(Config({ connectionString: ok }).connectionString).toBe(ok)
  })

  it('refuses unknown keys, bad schema names, out-of-range numbers and a pool beside a connection string', () => {
    expect(() => Config({ nope: 1 })).toThrow(ConfigError)
    expect(() => Config({ schema: 'Bad-Name' })).toThrow(
      /session-postgres: invalid config: schema: expected a lower-case SQL identifier/,
    )
    expect(() => Config({ schema: 'x'.repeat(64) })).toThrow(ConfigError)
    expect(() => Config({ leaseMs: 99 })).toThrow(/leaseMs/)
    expect(() => Config({ writeBatchMaxDelayMs: 0 })).toThrow(/writeBatchMaxDelayMs/)
    expect(() => Config({ pool: {} })).toThrow(/pool: expected a pg Pool/)
    const pool = new pg.Pool({ connectionString: pgUrl })
    try {
      expect(() => Config({ pool, connectionString: pgUrl })).toThrow(
        /pool: give either connectionString or pool, not both/,
      )
      expect(Config({ pool }).pool).toBe(pool)
    } finally {
      void pool.end()
    }
  })

  it('a bad config does not start the plugin', () => {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    ctx.plugin(SessionPostgres, { schema: 'Nope' } as never)
    expect(ctx.get('sessionPersistence')).toBeUndefined()
  })

  it('locate names the database, schema and session, never the credentials, and reads nothing', () => {
    const { persistence, schema } = makeApp()
    const location = persistence.locate({ version: 0, id: 'a b/c', createdAt: 1 } as never)
    const url = new URL(pgUrl)
    expect(location).toEqual({
      kind: 'postgres',
      path: `postgres://${url.hostname}:${url.port}/postgres?schema=${schema}#a%20b%2Fc`,
    })
    expect(location.path).not.toContain(url.password)
  })

  it('runs on a pool the app owns and leaves it open when it stops', async () => {
    const pool = new pg.Pool({ connectionString: pgUrl, max: 3 })
    try {
      const app = makeApp({ pool, connectionString: undefined } as never, freshSchema())
      const s = app.ctx.sessions.create('s1')
      s.append('turn/start', { turn: 1 })
      await app.ctx.sessions.flush(s)
      await app.stop()
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
      // and hands it back without the plugin's error listener
      expect(pool.listenerCount('error')).toBe(0)
    } finally {
      await pool.end()
    }
  })

  it('a connection of its own pool that fails after it stopped is a warning, not an unhandled error', async () => {
    const warnings = captureWarnings()
    const app = makeApp()
    const s = app.ctx.sessions.create('s1')
    s.append('turn/start', { turn: 1 })
    await app.ctx.sessions.flush(s)
    const pool = (app.persistence as unknown as { pool: pg.Pool }).pool
    await app.stop()
    // pg-pool's end() resolves before its idle clients' sockets have closed; a server shutting down then makes one
    // emit 'error' on the pool, as here
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    })
    expect(() => pool.emit('error', terminated, {})).not.toThrow()
    expect(warnings).toEqual([
      'session-postgres: an idle database connection failed: Error: terminating connection due to administrator command',
    ])
  })
})
