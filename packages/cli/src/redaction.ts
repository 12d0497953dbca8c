/**
 * Nothing the CLI prints shows a credential it knows: the values of the environment variables it reads for keys
 * (`DEEPSEEK_API_KEY`, `BRIDLE_API_KEY`, and the `apiKeyEnv` of every `@bridle/llm-openai` row, which `appSecrets`
 * in model-selection.ts reads) and the userinfo of any URL. The adapter already scrubs its own errors before they
 * reach the session log; this covers everything else on stdout and stderr — `inspect` of an older log, a plugin's
 * error.
 */
import { redactSecrets } from '@bridle/llm/secrets'
import type { Io } from './terminal.js'

/** Environment variables the CLI itself reads for keys (and the bearer tokens of `bridle serve`). */
const KEY_VARIABLES: readonly string[] = ['DEEPSEEK_API_KEY', 'BRIDLE_API_KEY', 'BRIDLE_SERVE_TOKEN']

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
