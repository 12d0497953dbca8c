/**
 * Nothing the CLI prints shows a credential it knows: the values of the environment variables it reads
 * for keys (`DEEPSEEK_API_KEY`, `BRIDLE_API_KEY`, and the `apiKeyEnv` of every `@bridle/llm-openai` row)
 * and the userinfo of any URL. The adapter already scrubs its own errors before they reach the session
 * log; this covers everything else on stdout and stderr — `inspect` of an older log, a plugin's error.
 */
import { redactSecrets } from '@bridle/llm'
import { rowName, type AppConfig } from './app-config.js'
import type { Io } from './terminal.js'

/** Environment variables the CLI itself reads for keys. */
const KEY_VARIABLES: readonly string[] = ['DEEPSEEK_API_KEY', 'BRIDLE_API_KEY']

const LLM_OPENAI = '@bridle/llm-openai'

/** An `Io` whose output passes through `redactSecrets` with `secrets`, which may grow later (after boot). */
export function redactingIo(io: Io, secrets: Set<string>): Io {
  return {
    ...io,
    out: (text) => io.out(redactSecrets(text, secrets)),
    err: (text) => io.err(redactSecrets(text, secrets)),
    secrets,
  }
}

/** The values of the CLI's own key variables. */
export function envSecrets(env: NodeJS.ProcessEnv): string[] {
  return KEY_VARIABLES.flatMap((name) => (env[name] ? [env[name]] : []))
}

/** The values of the key variables the app's `@bridle/llm-openai` rows name (`apiKeyEnv`, default DEEPSEEK_API_KEY). */
export function appSecrets(app: AppConfig, env: NodeJS.ProcessEnv): string[] {
  const values: string[] = []
  for (const row of app.plugins) {
    if (rowName(row) !== LLM_OPENAI) continue
    const config = (row.config ?? {}) as { apiKeyEnv?: unknown; baseURL?: unknown }
    const name =
      typeof config.apiKeyEnv === 'string'
        ? config.apiKeyEnv
        : config.baseURL === undefined
          ? 'DEEPSEEK_API_KEY'
          : undefined
    const value = name === undefined ? undefined : env[name]
    if (value) values.push(value)
  }
  return values
}
