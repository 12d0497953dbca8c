/**
 * How every Bridle plugin takes its config: `parseConfig` is the body of each plugin's parse function,
 * `configParser` turns that function into the plugin's `Config`, and `ConfigError` is what a bad config throws,
 * naming the plugin and each failing field.
 */
import { HarnessError } from './errors.js'

/** One issue of a config validation failure (structurally a zod issue). */
export interface ConfigIssue {
  readonly path: readonly PropertyKey[]
  readonly message: string
}

/** Formats an issue path as `a.b.0`, or `(root)` when empty. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(root)' : path.map((segment) => String(segment)).join('.')
}

/**
 * How every Bridle plugin reports a bad config. `new ConfigError('llm', zodError)` has the message
 * `llm: invalid config: <path>: <message>; …` and keeps the issue list as `issues`.
 */
export class ConfigError extends HarnessError {
  override name = 'ConfigError'
  readonly issues: readonly ConfigIssue[]

  constructor(pluginName: string, error: { readonly issues: readonly ConfigIssue[] }, options?: { cause?: unknown }) {
    const issues = Array.isArray(error?.issues) ? error.issues : []
    const details = issues.map((issue) => `${formatIssuePath(issue.path ?? [])}: ${issue.message}`).join('; ')
    // No default `cause`: cordis' logger prints an error's cause first, which would put the raw zod issue
    // dump in front of this readable message. The issues stay available as `issues`.
    super(`${pluginName}: invalid config: ${details || 'invalid value'}`, 'INVALID_CONFIG', options)
    this.issues = issues
  }
}

/** The minimal schema surface `parseConfig` needs (any zod 4 schema has it). */
export interface ConfigSchemaLike<T> {
  safeParse(raw: unknown): { success: true; data: T } | { success: false; error: { issues: readonly ConfigIssue[] } }
}

/**
 * Parses `raw` with a plugin's config schema, throwing `ConfigError(pluginName, zodError)` on failure.
 * This is the body of every Bridle plugin's `Config(raw)` function. `undefined`/`null` is parsed as `{}`.
 */
export function parseConfig<T>(pluginName: string, schema: ConfigSchemaLike<T>, raw: unknown): T {
  const result = schema.safeParse(raw ?? {})
  if (!result.success) throw new ConfigError(pluginName, result.error)
  return result.data
}

/**
 * Makes a plugin's `Config(raw)` from its parse function. Every config it returns is remembered, and a remembered
 * config handed back is returned as it is. Cordis calls a plugin's `static Config` before it constructs the plugin;
 * the constructor calls `Config` again (as `configuredPlugin` does) so that a plugin built directly with
 * `new Plugin(ctx, raw)` validates `raw` too. Through cordis, that second call neither parses again nor fails.
 */
export function configParser<Raw, T extends object>(parse: (raw: Raw) => T): (raw: Raw) => T {
  const parsed = new WeakSet<object>()
  return (raw) => {
    if (typeof raw === 'object' && raw !== null && parsed.has(raw)) return raw as unknown as T
    const config = parse(raw)
    parsed.add(config)
    return config
  }
}
