import { parseConfig } from '@bridle/llm'
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

/** Drops keys whose value is `null`, so YAML empty values (`persona:`) count as absent. */
function dropNulls(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(raw)) if (value !== null) out[key] = value
  return out
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
export const ConfigSchema: z.ZodType<SystemPromptConfig, unknown> = z.preprocess(
  dropNulls,
  z.strictObject(
    {
      includeHarnessIdentity: z.boolean({ error }).default(true),
      includeRuntimeContext: z.boolean({ error }).default(true),
      persona: z.string({ error }).default(''),
      toolOrder: z.array(z.string({ error }), { error }).optional(),
      harnessSource: z
        .string({ error })
        .min(1, { error: 'must be a non-empty path' })
        // the section text is interpolated: a literal {{ in the path would read as a variable reference
        .refine((path) => !path.includes('{{'), { error: 'must not contain "{{"' })
        .optional(),
    },
    { error },
  ),
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
export function parseSystemPromptConfig(raw: unknown): SystemPromptConfig {
  const config = parseConfig('system-prompt', ConfigSchema, raw)
  if (config.toolOrder !== undefined) validateToolOrder(config.toolOrder)
  return config
}
