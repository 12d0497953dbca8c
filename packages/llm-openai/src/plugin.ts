/**
 * The functional cordis plugin: `ctx.plugin(llmOpenai, config)` registers one route on
 * `ctx.llm`; disposing the plugin (or an HMR reload) removes it.
 */
import type { Context } from 'cordis'
import { configParser } from '@bridle/llm'
import { registerRoute } from '@bridle/llm/adapter-kit'
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
 * Registers the adapter under `config.provider`, its key and credential headers filtered from the moment the route
 * loads (docs/security.md#what-is-filtered). Disposing the plugin removes the route and ends its calls in flight, so
 * nothing of a disposed route (socket, retry sleep, watchdog) keeps running.
 */
export function apply(ctx: Context, config: OpenAICompatConfig): void {
  registerRoute(ctx, config, new OpenAICompatAdapter(config))
}
