/**
 * The backend-independent persistence rules (`@bridle/persistence-conformance`), run against session-postgres on a
 * real PostgreSQL server. The store is a fresh schema; stored sessions are inserted as rows; a fault is a real
 * database error, raised once by a trigger on the events table.
 */
import { describePersistenceContract, type PersistenceDriver } from '@bridle/persistence-conformance'
import type { Context } from 'cordis'
import { SessionPostgres, SCHEMA_VERSION } from '../src/index.js'
import { admin, freshSchema, pgUrl } from './helpers.js'
import { armFault, insertStored, prepareSchema } from './stored.js'

interface PgStore {
  readonly schema: string
}

const driver: PersistenceDriver<PgStore> = {
  name: 'session-postgres',
  newStore: () => ({ schema: freshSchema() }),
  load(ctx: Context, store, config = {}) {
    const fork = ctx.plugin(SessionPostgres, {
      connectionString: pgUrl,
      poolSize: 3,
      schema: store.schema,
      ...config,
    } as never)
    const persistence = ctx.get('sessionPersistence') as SessionPostgres
    return {
      persistence,
      stop: async () => {
        fork.dispose()
        await persistence.whenStopped()
      },
    }
  },
  async writeStored(store, header, events) {
    await prepareSchema(store.schema)
    await insertStored(
      store.schema,
      header,
      events.map((event) => JSON.stringify(event)),
    )
  },
  async writeForeignVersion(store, id, version) {
    await prepareSchema(store.schema)
    await admin.query(`INSERT INTO "${store.schema}".sessions (id, format_version, created_at) VALUES ($1, $2, 1)`, [
      id,
      version,
    ])
  },
  async storedSeqs(store, id) {
    const exists = await admin
      .query(`SELECT 1 FROM "${store.schema}".migrations WHERE version = $1`, [SCHEMA_VERSION])
      .catch(() => undefined)
    if (exists === undefined) return []
    const { rows } = await admin.query(`SELECT seq FROM "${store.schema}".events WHERE session_id = $1 ORDER BY seq`, [
      id,
    ])
    return rows.map((row: { seq: number }) => row.seq)
  },
  async failNextWrite(store, id) {
    await armFault(store.schema, id)
    return new RegExp(`injected write failure for session ${id}`)
  },
  collisionMessage: (id) =>
    `session "${id}" already has a persisted log in the database that does not match this live session (id collision)`,
  existingMessage: (id) => `session "${id}" already exists in the database; load/resume it instead of creating`,
}

describePersistenceContract(driver)
