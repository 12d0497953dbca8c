/**
 * Nothing the CLI prints shows a credential it knows (docs/security.md#what-is-shown): every write passes the
 * process-wide secret filter of `@bridle/llm` — the values of the environment variables the CLI reads for keys
 * (`DEEPSEEK_API_KEY`, `BRIDLE_API_KEY`, `ANTHROPIC_API_KEY`, a credential in `BRIDLE_BASE_URL` or
 * `ANTHROPIC_BASE_URL`), the `apiKeyEnv` of every model row (`appSecrets` in model-selection.ts, added at boot), whatever the adapters and backends
 * hold — and the userinfo of any URL. Text the CLI cuts (`oneLine`) is redacted before it is cut.
 */
import { holdSecrets, holdUrlSecrets, redactSecrets } from '@bridle/llm/secrets'
import type { Io } from './terminal.js'

/** Environment variables the CLI itself reads for keys (and the bearer tokens of `bridle serve`). */
const KEY_VARIABLES: readonly string[] = [
  'DEEPSEEK_API_KEY',
  'BRIDLE_API_KEY',
  'ANTHROPIC_API_KEY',
  'BRIDLE_SERVE_TOKEN',
]

/** An `Io` whose every write passes the process-wide secret filter (which may learn more after boot). */
export function redactingIo(io: Io): Io {
  return {
    ...io,
    out: (text) => io.out(redactSecrets(text)),
    err: (text) => io.err(redactSecrets(text)),
  }
}

/** The values of the CLI's own key variables. */
export function envSecrets(env: NodeJS.ProcessEnv): string[] {
  return KEY_VARIABLES.flatMap((name) => (env[name] ? [env[name]] : []))
}

/** Adds the CLI's key variables and any credential in `BRIDLE_BASE_URL` or `ANTHROPIC_BASE_URL` to the process-wide filter. */
export function holdEnvSecrets(env: NodeJS.ProcessEnv): void {
  holdSecrets(...envSecrets(env))
  holdUrlSecrets(env.BRIDLE_BASE_URL)
  holdUrlSecrets(env.ANTHROPIC_BASE_URL)
}
