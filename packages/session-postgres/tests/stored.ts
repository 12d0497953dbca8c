/**
 * Writing a schema's rows behind the backend's back: stored sessions for the read tests, and faults — a trigger that
 * makes the next insert of a session's events fail with a real database error.
 */
import { migrate } from '../src/migrations.js'
import { tablesOf } from '../src/database.js'
import { admin } from './helpers.js'

/** Creates the schema at the current version (what the plugin does on start). */
export async function prepareSchema(schema: string): Promise<void> {
  await migrate(admin as never, tablesOf(schema), schema)
}

/** Inserts a stored session: its header columns and one row per event text (seqs from 0, in order). */
export async function insertStored(
  schema: string,
  header: { id: string; createdAt: number; cwd?: string; parentSession?: string; seedLength?: number },
  bodies: readonly string[],
  options: { seqs?: readonly number[]; lease?: { owner: string; token: number; ms: number } } = {},
): Promise<void> {
  const lease = options.lease
  await admin.query(
    `INSERT INTO "${schema}".sessions (id, format_version, created_at, cwd, parent_session, seed_length, event_count, revision,
                                       lease_owner, lease_token, lease_expires)
     VALUES ($1, 0, $2, $3, $4, $5, $6, 1, $7, $8, CASE WHEN $7::text IS NULL THEN NULL ELSE now() + $9 * interval '1 millisecond' END)`,
    [
      header.id,
      header.createdAt,
      header.cwd ?? null,
      header.parentSession ?? null,
      header.seedLength ?? null,
      bodies.length,
      lease?.owner ?? null,
      lease?.token ?? 0,
      lease?.ms ?? 0,
    ],
  )
  if (bodies.length === 0) return
  const seqs = options.seqs ?? bodies.map((_, i) => i)
  await admin.query(
    `INSERT INTO "${schema}".events (session_id, seq, body) SELECT $1, s, b FROM unnest($2::int[], $3::text[]) AS u(s, b)`,
    [header.id, seqs, bodies],
  )
}

/**
 * Makes the next insert into `schema`'s events for `id` fail with `injected write failure for session <id>`. The
 * trigger counts with a sequence, because a sequence is the one thing a failed transaction does not roll back.
 */
export async function armFault(schema: string, id: string): Promise<void> {
  await prepareSchema(schema)
  await admin.query(`
    CREATE TABLE IF NOT EXISTS "${schema}".test_faults (session_id text PRIMARY KEY, fire_at bigint NOT NULL);
    CREATE SEQUENCE IF NOT EXISTS "${schema}".test_fault_counter;
    CREATE OR REPLACE FUNCTION "${schema}".test_fault() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM "${schema}".test_faults f WHERE f.session_id = NEW.session_id) THEN
        IF nextval('"${schema}".test_fault_counter') = (SELECT fire_at FROM "${schema}".test_faults WHERE session_id = NEW.session_id) THEN
          RAISE EXCEPTION 'injected write failure for session %', NEW.session_id;
        END IF;
      END IF;
      RETURN NEW;
    END $$;
    DROP TRIGGER IF EXISTS test_fault ON "${schema}".events;
    CREATE TRIGGER test_fault BEFORE INSERT ON "${schema}".events FOR EACH ROW EXECUTE FUNCTION "${schema}".test_fault();
  `)
  await admin.query(
    `INSERT INTO "${schema}".test_faults (session_id, fire_at)
     VALUES ($1, (SELECT last_value + CASE WHEN is_called THEN 1 ELSE 0 END FROM "${schema}".test_fault_counter))
     ON CONFLICT (session_id) DO UPDATE SET fire_at = EXCLUDED.fire_at`,
    [id],
  )
}
