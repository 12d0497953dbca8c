import { configParser, parseConfig } from '@bridle/llm'
import { z } from 'zod'

/** The plugin name used in config errors and warnings. */
export const PLUGIN_NAME = 'session-jsonl'

/** The zod 4 schema of the `session-jsonl` plugin config (README.md#config). */
export const ConfigSchema = z
  .object({
    root: z.string().min(1).default('.bridle/sessions'),
    writeBatchMaxDelayMs: z.number().int().min(1).max(2_147_483_647).default(200),
    checkpoints: z.boolean().default(true),
    extraEventTypes: z.array(z.string().min(1)).default([]),
  })
  .strict()

/** The parsed config. */
export type SessionJsonlConfig = z.output<typeof ConfigSchema>

/** The config an app passes (every field optional). */
export type SessionJsonlConfigInput = z.input<typeof ConfigSchema>

/**
 * Parses a raw plugin config (`undefined` means `{}`), throwing `ConfigError` that names the plugin and each failing
 * field. Upstream cordis calls this as `SessionJsonl.Config` when the plugin loads.
 */
export const Config = configParser(
  (raw?: SessionJsonlConfigInput | null): SessionJsonlConfig => parseConfig(PLUGIN_NAME, ConfigSchema, raw),
)
