import { configParser, intInRange, nullAsAbsent, parseConfig } from '@bridle/llm'
import { isAbsolute } from 'node:path'
import { z } from 'zod'

/**
 * Config of `@bridle/plugin-workspace` (zod 4 strict object; `null` counts as absent, unknown keys are rejected).
 * - `defaultCwd`: absolute directory used for agents whose session header has no `cwd` (default: `process.cwd()`).
 * - `git`: whether to add the `workspace:git` context (default `true`).
 * - `gitBinary`: the git executable (default `git`, looked up on `PATH`).
 * - `gitTimeoutMs`: how long one `git status` may take before it is killed and the context left out (default 1500).
 * - `gitMaxBytes`: how much `git status` output is read at most (default 256 KiB); beyond it the summary says so.
 */
export const ConfigSchema = z.strictObject({
  defaultCwd: nullAsAbsent(
    z.string().refine(isAbsolute, { message: 'defaultCwd must be an absolute path' }).optional(),
  ),
  git: nullAsAbsent(z.boolean().default(true)),
  gitBinary: nullAsAbsent(z.string().min(1).default('git')),
  gitTimeoutMs: intInRange(50, 60_000, 1500),
  gitMaxBytes: intInRange(1024, 64 * 1024 * 1024, 256 * 1024),
})

export type WorkspaceConfig = z.output<typeof ConfigSchema>
/** What an app passes to `ctx.plugin` (every field optional; `null` counts as absent). */
export type WorkspaceConfigInput = z.input<typeof ConfigSchema>

/** Parses a raw config; throws `ConfigError` naming `plugin-workspace` and every failing field. Idempotent. */
export const Config = configParser(
  (raw?: WorkspaceConfigInput | null): WorkspaceConfig => parseConfig('plugin-workspace', ConfigSchema, raw),
)
