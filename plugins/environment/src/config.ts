import { configParser, nullAsAbsent, parseConfig } from '@bridle/llm'
import { z } from 'zod'
import { looksLikeRandomToken } from './secret-token.js'

/** Label names that suggest a secret; such labels are refused so a credential cannot be exposed by mistake. */
export const SECRET_NAME_PATTERN =
  /token|secret|passw|pwd|credential|api[-_]?key|private[-_]?key|auth|cookie|session|bearer/i

/** Values that look like credentials (common key prefixes, PEM blocks, bearer headers, URLs with a password). */
export const SECRET_VALUE_PATTERN =
  /-----BEGIN|\bBearer\s|\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}|\bgh[pousr]_[A-Za-z0-9]{8,}|\bAKIA[0-9A-Z]{12,}|\bxox[abpr]-|:\/\/[^/\s:@]+:[^/\s@]+@/

/**
 * True when `value` looks like a credential: it matches {@link SECRET_VALUE_PATTERN} (a known prefix or shape) or
 * holds an unprefixed random-looking token (see `looksLikeRandomToken`).
 */
export function looksLikeSecret(value: string): boolean {
  return SECRET_VALUE_PATTERN.test(value) || looksLikeRandomToken(value)
}

/** A public, single-line value the model may see. */
const publicValue = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), { message: 'must be a single line without control characters' })
  .refine((v) => !looksLikeSecret(v), { message: 'looks like a credential; only public values may be exposed' })

/** Checks label names here (not as a record key schema) so each failure names the label and says why. */
const labels = z.record(z.string(), publicValue).superRefine((record, ctx) => {
  for (const name of Object.keys(record)) {
    let message: string | undefined
    if (!/^[a-z][a-z0-9_-]{0,39}$/.test(name)) message = 'label names match /^[a-z][a-z0-9_-]{0,39}$/'
    else if (SECRET_NAME_PATTERN.test(name)) message = 'names a secret; labels may only carry public facts'
    else if (name === 'environment' || name === 'region') message = 'is reserved (set it as a top-level field)'
    if (message !== undefined) ctx.addIssue({ code: 'custom', path: [name], message })
  }
})

/**
 * Config of `@bridle/plugin-environment` (zod 4 strict object; `null` counts as absent, unknown keys are rejected,
 * so a stray `apiKey:` fails loudly instead of being ignored).
 * - `environment`, `region`: the public deployment facts (required).
 * - `labels`: further public facts by name (optional). Secret-looking names or values are refused.
 * - `contextName`: the runtime context's name (default `environment`).
 * The plugin never reads `process.env`: only these configured, allow-listed keys reach the model.
 */
export const ConfigSchema = z.strictObject({
  environment: publicValue,
  region: publicValue,
  labels: nullAsAbsent(labels.optional()),
  contextName: nullAsAbsent(z.string().min(1).default('environment')),
})

export type EnvironmentConfig = z.output<typeof ConfigSchema>
/** What an app passes to `ctx.plugin` (every field optional; `null` counts as absent). */
export type EnvironmentConfigInput = z.input<typeof ConfigSchema>

/** Parses a raw config; throws `ConfigError` naming `plugin-environment` and every failing field. Idempotent. */
export const Config = configParser(
  (raw?: EnvironmentConfigInput | null): EnvironmentConfig => parseConfig('plugin-environment', ConfigSchema, raw),
)
