import { configParser, nullAsAbsent, parseConfig } from '@bridle/llm'
import { z } from 'zod'
import { validateToolOrder } from './tool-order.js'

/** The normalised configuration of the `SystemPrompt` service. */
export interface SystemPromptConfig {
  /** Register the built-in `harness:identity` section (default `true`). */
  includeHarnessIdentity: boolean
  /** `false` installs a global runtime-context suppressor that no scope can undo (default `true`). */
  includeRuntimeContext: boolean
  /** Text of the built-in `deployment:persona` section, a `{{name}}` template (default `''`, dropped at render). */
  persona: string
  /** Explicit tool order with a `"<unlisted-tools>"` rest entry; absent means canonical (code-unit) order. */
  toolOrder?: string[]
  /**
   * Where the harness's own source checkout is. When set, the `harness:source` section tells the model so, and that
   * it is neither the task workspace nor the working directory. Absent: no such section.
   */
  harnessSource?: string
}

/** What an app passes to `ctx.plugin(SystemPrompt, config)`; every field is optional and `null` counts as absent. */
export interface SystemPromptConfigInput {
  includeHarnessIdentity?: boolean | null
  includeRuntimeContext?: boolean | null
  persona?: string | null
  toolOrder?: readonly string[] | null
  harnessSource?: string | null
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN'
  return typeof value
}

/** Type mismatches read `expected array, received string`, so the config message stays short and exact. */
const error = (issue: { code?: string; expected?: unknown; input?: unknown }): string | undefined =>
  issue.code === 'invalid_type' ? `expected ${String(issue.expected)}, received ${kindOf(issue.input)}` : undefined

/**
 * The zod schema of `SystemPromptConfig`: a strict object (unknown keys such as `tooOrder` are rejected) with
 * defaults, where any key given as `null` counts as absent. Shape only: `toolOrder` rules are checked by `Config`.
 */
export const ConfigSchema: z.ZodType<SystemPromptConfig, unknown> = z.strictObject(
  {
    includeHarnessIdentity: nullAsAbsent(z.boolean({ error }).default(true)),
    includeRuntimeContext: nullAsAbsent(z.boolean({ error }).default(true)),
    persona: nullAsAbsent(z.string({ error }).default('')),
    toolOrder: nullAsAbsent(z.array(z.string({ error }), { error }).optional()),
    harnessSource: nullAsAbsent(
      z
        .string({ error })
        .min(1, { error: 'must be a non-empty path' })
        // the section text is interpolated: a literal {{ in the path would read as a variable reference
        .refine((path) => !path.includes('{{'), { error: 'must not contain "{{"' })
        .optional(),
    ),
  },
  { error },
)

/** Alias of `ConfigSchema` under a package-qualified name. */
export const SystemPromptConfigSchema = ConfigSchema

/**
 * Parses and validates a raw config; a plain function (never uses `this`) because upstream cordis calls
 * `static Config` unbound.
 *
 * Parses `raw ?? {}` with `ConfigSchema`, throwing `ConfigError` (plugin `system-prompt`, every failing field named,
 * zod issues on `.issues`); then runs `validateToolOrder` when `toolOrder` is present (plain `Error`s with the
 * documented messages). Returns the normalised config; idempotent on its own output.
 */
export const parseSystemPromptConfig = configParser((raw: unknown): SystemPromptConfig => {
  const config = parseConfig('system-prompt', ConfigSchema, raw)
  if (config.toolOrder !== undefined) validateToolOrder(config.toolOrder)
  return config
})
