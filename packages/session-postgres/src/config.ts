import { configParser, parseConfig } from '@bridle/llm'
import { z } from 'zod'
import type { PoolLike } from './database.js'

/** The plugin name used in config errors and warnings. */
export const PLUGIN_NAME = 'session-postgres'

const isPoolLike = (value: unknown): value is PoolLike =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { query?: unknown }).query === 'function' &&
  typeof (value as { connect?: unknown }).connect === 'function'

/** The start of a libpq key=value connection string (`host=…`, `dbname = …`). */
const KEY_VALUE = /^\s*[A-Za-z_]+\s*=/

/** The zod 4 schema of the `session-postgres` plugin config (see the package README, "Config"). */
export const ConfigSchema = z
  .object({
    /** A PostgreSQL connection URL; without it (and without `pool`) node-postgres reads PGHOST, PGUSER, … */
    connectionString: z
      .string()
      .min(1)
      // node-postgres reads URLs only: `host=… password=…` would go to the server whole, as the database name, and
      // come back in its error messages. Refused here, without echoing the text.
      .refine((text) => !KEY_VALUE.test(text), {
        message:
          'expected a postgres:// URL (node-postgres does not read key=value connection strings such as "host=… user=…")',
      })
      .optional(),
    /** An existing `pg.Pool` (programmatic hosts); the plugin never ends a pool it did not create. */
    pool: z.custom<PoolLike>(isPoolLike, 'expected a pg Pool (an object with query() and connect())').optional(),
    /** The schema that holds the tables; created on start. A plain lower-case SQL identifier. */
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a lower-case SQL identifier (a-z, 0-9, _; at most 63 characters)')
      .default('bridle'),
    /** Connections of the pool the plugin creates (one more is held for LISTEN). */
    poolSize: z.number().int().min(1).max(1000).default(10),
    writeBatchMaxDelayMs: z.number().int().min(1).max(2_147_483_647).default(200),
    checkpoints: z.boolean().default(true),
    extraEventTypes: z.array(z.string().min(1)).default([]),
    /** How long a writer's lease lasts without renewal; it is renewed every third of this while live. */
    leaseMs: z.number().int().min(100).max(86_400_000).default(30_000),
    /** How long `prepare`/`resume` wait for a lease another process holds (0: fail at once). */
    leaseWaitMs: z.number().int().min(0).max(2_147_483_647).default(0),
    /** This writer's name in the lease; defaults to `<hostname>/<pid>/<random>`, unique per plugin instance. */
    ownerId: z.string().min(1).max(200).optional(),
  })
  .strict()
  .refine((config) => !(config.pool !== undefined && config.connectionString !== undefined), {
    message: 'give either connectionString or pool, not both',
    path: ['pool'],
  })

/** The parsed config. */
export type SessionPostgresConfig = z.output<typeof ConfigSchema>

/** The config an app passes (every field optional). */
export type SessionPostgresConfigInput = z.input<typeof ConfigSchema>

/**
 * Parses a raw plugin config (`undefined` means `{}`), throwing `ConfigError` that names the plugin and each failing
 * field. Upstream cordis calls this as `SessionPostgres.Config` when the plugin loads.
 */
export const Config = configParser((raw: unknown): SessionPostgresConfig => parseConfig(PLUGIN_NAME, ConfigSchema, raw))
