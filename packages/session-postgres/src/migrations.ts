import type { PoolLike, Tables } from './database.js'

/**
 * The schema's migrations, in order; each runs once, inside the transaction that records it. Never edit a shipped
 * migration: add the next one.
 *
 * - `sessions`: one row per session — the header fields, the writer's cursor (`event_count`), a `revision` bumped by
 *   every write, and the lease (`lease_owner`, `lease_expires`, and the fencing token `lease_token`, which only ever
 *   grows).
 * - `events`: one row per event, keyed by (session, seq), holding the event's JSON text exactly as appended (a
 *   `json`/`jsonb` column would re-order keys or re-format numbers, and a reload must reproduce the same bytes).
 * - `messages`: messages posted to a session from any process, kept until an `agent/inbox/spliced` event that
 *   inserted them is durable (`delivered_seq`), or until they are refused (`rejected`).
 * - version 2: the listing summary on `sessions` (`turns`, `last_activity`, `model_provider`, `model_name`,
 *   `first_prompt`), kept by the statement that writes each batch. `summarized` is false for rows written before it
 *   and after a repair; a listing computes those from their events.
 */
export const MIGRATIONS: readonly ((t: Tables) => string)[] = [
  (t) => `
    CREATE TABLE ${t.sessions} (
      id text PRIMARY KEY,
      format_version integer NOT NULL,
      created_at bigint NOT NULL,
      cwd text,
      parent_session text,
      seed_length integer,
      event_count integer NOT NULL DEFAULT 0,
      revision bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now(),
      lease_owner text,
      lease_expires timestamptz,
      lease_token bigint NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_created ON ${t.sessions} (created_at, id);
    CREATE TABLE ${t.events} (
      session_id text NOT NULL,
      seq integer NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (session_id, seq)
    );
    CREATE TABLE ${t.messages} (
      pos bigserial PRIMARY KEY,
      session_id text NOT NULL,
      message_id text NOT NULL,
      target text NOT NULL CHECK (target IN ('next-turn', 'next-step')),
      body text NOT NULL,
      posted_at timestamptz NOT NULL DEFAULT now(),
      delivered_seq integer,
      rejected text,
      UNIQUE (session_id, message_id)
    );
    CREATE INDEX messages_pending ON ${t.messages} (session_id, pos) WHERE delivered_seq IS NULL AND rejected IS NULL;
  `,
  (t) => `
    ALTER TABLE ${t.sessions}
      ADD COLUMN summarized boolean NOT NULL DEFAULT false,
      ADD COLUMN turns integer NOT NULL DEFAULT 0,
      ADD COLUMN last_activity bigint,
      ADD COLUMN model_provider text,
      ADD COLUMN model_name text,
      ADD COLUMN first_prompt text;
  `,
]

/** The schema version this build writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length

/**
 * Creates the schema and applies every missing migration, idempotently. Two processes starting at once serialize
 * on a transaction-scoped advisory lock keyed by the schema name, so the second one finds the work done. A schema
 * already at a newer version than this build knows is refused (an older harness must not write a newer layout).
 */
export async function migrate(pool: PoolLike, tables: Tables, schemaName: string): Promise<void> {
  const client = await pool.connect()
  let failed: Error | undefined
  try {
    await client.query('BEGIN')
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `bridle-session-postgres:${schemaName}`,
    ])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${tables.schema}`)
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${tables.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    )
    const { rows } = await client.query(`SELECT coalesce(max(version), 0) AS version FROM ${tables.migrations}`)
    const current = Number(rows[0].version)
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `session-postgres: schema "${schemaName}" is at version ${current}, newer than this build supports (${SCHEMA_VERSION}); upgrade the harness`,
      )
    }
    for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version - 1]!(tables))
      await client.query(`INSERT INTO ${tables.migrations} (version) VALUES ($1)`, [version])
    }
    await client.query('COMMIT')
  } catch (error) {
    failed = error as Error
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    // a client whose transaction failed is not trusted back into the pool
    client.release(failed !== undefined)
  }
}
