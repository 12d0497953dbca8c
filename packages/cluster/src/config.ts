import { configParser, parseConfig } from '@bridle/llm'
import { z } from 'zod'
import { IDENTIFIER } from './names.js'

/** The plugin name used in config errors and warnings. */
export const PLUGIN_NAME = 'cluster'

const seconds = (min: number, max: number, fallback: number) => z.number().int().min(min).max(max).default(fallback)

/** The zod 4 schema of the `ClusterWorker` config (see the package README, "Worker config (`ClusterWorker`)"). */
export const ConfigSchema = z
  .object({
    /** The database of the sessions; default: session-postgres's `connectionString`. */
    connectionString: z.string().min(1).optional(),
    /** The schema pg-boss keeps its tables in (created on start). */
    queueSchema: z.string().regex(IDENTIFIER, 'expected a lower-case SQL identifier').default('bridle_queue'),
    /** The pg-boss queue of session jobs. */
    queue: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,100}$/, 'expected letters, digits, _ . - (at most 100)')
      .default('bridle-sessions'),
    /** Sessions this process serves at once (pg-boss work loops). */
    concurrency: z.number().int().min(1).max(256).default(2),
    /** A worker that stopped answering (killed, cut off) has its jobs retried elsewhere after this long. */
    handoverSeconds: seconds(1, 3_600, 10),
    /** How often this process runs pg-boss's maintenance, which retries the jobs of silent workers. */
    maintenanceIntervalSeconds: seconds(1, 3_600, 2),
    /** The longest one job may serve a session in one go before pg-boss's own bound applies (its `expireInSeconds`). */
    jobTimeoutSeconds: seconds(60, 86_400, 3_600),
    /** Fallback polling for jobs when no wake-up arrives (pg-boss's minimum is 0.5). */
    pollingIntervalSeconds: z.number().min(0.5).max(600).default(2),
    /** How often a job is retried before pg-boss marks it failed (the sweep enqueues its session again). */
    retryLimit: z.number().int().min(0).max(1_000_000).default(10_000),
    /** Pause before a job that was handed back or failed runs again. */
    retryDelaySeconds: seconds(0, 3_600, 0),
    /** How often this process looks for sessions whose messages wait without a job. */
    sweepIntervalMs: z.number().int().min(100).max(3_600_000).default(5_000),
    /** How long a job keeps a quiet session for its next message before it ends (saves a resume per turn). */
    lingerMs: z.number().int().min(0).max(60_000).default(250),
    /** After this long serving one session, a job ends at its next quiet moment; newer messages queue behind others. */
    maxJobSeconds: seconds(1, 86_400, 30),
    /** Options every resumed agent gets. */
    agent: z
      .object({
        provider: z.string().min(1).optional(),
        model: z.string().min(1).optional(),
        maxTokens: z.number().int().min(1).optional(),
      })
      .strict()
      .default({}),
  })
  .strict()

/** The parsed config. */
export type ClusterWorkerConfig = z.output<typeof ConfigSchema>

/** The config an app passes (every field optional). */
export type ClusterWorkerConfigInput = z.input<typeof ConfigSchema>

/** Parses a raw worker config, throwing `ConfigError` naming the plugin and each failing field. */
export const Config = configParser((raw: unknown): ClusterWorkerConfig => parseConfig(PLUGIN_NAME, ConfigSchema, raw))
