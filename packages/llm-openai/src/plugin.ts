/**
 * The functional cordis plugin: `ctx.plugin(llmOpenai, config)` registers one route on
 * `ctx.llm`; disposing the plugin (or an HMR reload) removes it.
 */
import type { Context } from 'cordis'
import { configParser, holdSecrets, namedCredentials } from '@bridle/llm'
import { OpenAICompatAdapter } from './adapter.js'
import { resolveConfig, type OpenAICompatConfig, type OpenAICompatConfigInput } from './config.js'

/** Plugin name. */
export const name = 'llm-openai'
/** Needs the `ctx.llm` service. */
export const inject = ['llm']
/**
 * One plugin instance is one route, and a deployment that talks to two servers mounts two rows:
 * `reusable` makes cordis apply every row instead of treating the second as a duplicate.
 */
export const reusable = true

/** Cordis config hook: parses and resolves (`resolveConfig`), throwing `ConfigError` on bad input. */
export const Config = configParser((raw?: OpenAICompatConfigInput | null): OpenAICompatConfig => resolveConfig(raw))

/**
 * Registers the adapter under `config.provider`. Disposing the plugin removes the route and ends its
 * calls in flight, so nothing of a disposed route (socket, retry sleep, watchdog) keeps running.
 */
export function apply(ctx: Context, config: OpenAICompatConfig): void {
  // the route's credentials are filtered from the moment it loads, before any call (docs/security.md#what-is-filtered)
  holdSecrets(
    config.apiKeyEnv === null ? undefined : process.env[config.apiKeyEnv],
    ...namedCredentials(config.headers),
  )
  const adapter = new OpenAICompatAdapter(config)
  ctx.effect(() => () => adapter.dispose())
  ctx.llm.registerAdapter([config.provider], adapter)
}
