/**
 * The functional cordis plugin: `ctx.plugin(llmAnthropic, config)` registers one route on `ctx.llm` (a `routePlugin`
 * of `@bridle/llm/adapter-kit`): its key (from `apiKeyEnv`, `ANTHROPIC_API_KEY` by default) and credential headers
 * are filtered from the moment it loads (docs/security.md#what-is-filtered); disposing the plugin (or an HMR reload)
 * removes the route and ends its calls in flight. `reusable`: one row is one route.
 */
import { routePlugin } from '@bridle/llm/adapter-kit'
import { AnthropicAdapter } from './adapter.js'
import { resolveConfig, type AnthropicConfigInput } from './config.js'

export const { name, inject, reusable, Config, apply } = routePlugin(
  'llm-anthropic',
  (raw?: AnthropicConfigInput | null) => resolveConfig(raw),
  (config) => new AnthropicAdapter(config),
)
