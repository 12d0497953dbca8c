import { configParser, intInRange, nullAsAbsent, parseConfig } from '@bridle/llm'
import { isAbsolute } from 'node:path'
import { z } from 'zod'

/**
 * Config of `@bridle/plugin-read-file` (zod 4 strict object; `null` counts as absent, unknown keys are rejected).
 * - `root`: absolute workspace root. Absent → the agent's cwd (`agent.session.header.cwd`), else `process.cwd()`.
 * - `maxBytes`: cap on the UTF-8 size of the numbered text one call returns (default 64 KiB).
 * - `defaultLimit`: lines returned when the model gives no `limit` (default 2000).
 * - `maxLineLength`: characters kept per line; longer lines are cut with a marker (default 2000).
 */
export const ConfigSchema = z.strictObject({
  root: nullAsAbsent(z.string().refine(isAbsolute, { message: 'root must be an absolute path' }).optional()),
  maxBytes: intInRange(256, 16 * 1024 * 1024, 64 * 1024),
  defaultLimit: intInRange(1, 1_000_000, 2000),
  maxLineLength: intInRange(16, 1_000_000, 2000),
})

export type ReadFileConfig = z.output<typeof ConfigSchema>
/** What an app passes to `ctx.plugin` (every field optional; `null` counts as absent). */
export type ReadFileConfigInput = z.input<typeof ConfigSchema>

/** Parses a raw config; throws `ConfigError` naming `plugin-read-file` and every failing field. Idempotent. */
export const Config = configParser(
  (raw?: ReadFileConfigInput | null): ReadFileConfig => parseConfig('plugin-read-file', ConfigSchema, raw),
)
