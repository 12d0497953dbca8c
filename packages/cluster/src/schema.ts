import type pg from 'pg'
import type { ClusterNames } from './names.js'

/**
 * Installs what the cluster adds to the database, idempotently (serialized on an advisory lock, so processes that
 * start together do it once): its own schema, and a trigger on session-postgres's `sessions` table that NOTIFYs the
 * written channel with the session id whenever a batch moves a session's cursor. The notification is sent when the
 * batch commits, so an event stream woken by it always finds the new rows (README, "The deployment picture").
 */
export async function installCluster(pool: pg.Pool, names: ClusterNames): Promise<void> {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `bridle-cluster-install:${names.sessionSchema}`,
    ])
    const q = `"${names.queueSchema}"`
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`)
    await client.query(`
      CREATE OR REPLACE FUNCTION ${q}.notify_written() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${names.writtenChannel}', NEW.id);
        RETURN NULL;
      END $$`)
    await client.query(`
      CREATE OR REPLACE TRIGGER ${names.writtenChannel}
        AFTER INSERT OR UPDATE OF event_count ON ${names.sessionsTable}
        FOR EACH ROW EXECUTE FUNCTION ${q}.notify_written()`)
    await client.query('COMMIT')
  } catch (error) {
    broken = error as Error
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release(broken !== undefined)
  }
}
