/**
 * The functional cordis plugin: `ctx.plugin(llmAnthropic, config)` registers one route on `ctx.llm`; disposing the
 * plugin (or an HMR reload) removes it and ends its calls in flight.
 */
import type { Context } from 'cordis'
import { configParser } from '@bridle/llm'
import { AnthropicAdapter } from './adapter.js'
import { resolveConfig, type AnthropicConfig, type AnthropicConfigInput } from './config.js'

/** Plugin name. */
export const name = 'llm-anthropic'
/** Needs the `ctx.llm` service. */
export const inject = ['llm']
/** One plugin instance is one route; a deployment that talks to two endpoints mounts two rows. */
export const reusable = true

/** Cordis config hook: parses and resolves (`resolveConfig`), throwing `ConfigError` on bad input. */
export const Config = configParser((raw?: AnthropicConfigInput | null): AnthropicConfig => resolveConfig(raw))

/** Registers the adapter under `config.provider`; disposing the plugin removes the route and aborts its calls. */
export function apply(ctx: Context, config: AnthropicConfig): void {
  const adapter = new AnthropicAdapter(config)
  ctx.effect(() => () => adapter.dispose())
  ctx.llm.registerAdapter([config.provider], adapter)
}
