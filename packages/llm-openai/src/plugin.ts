/**
 * The functional cordis plugin: `ctx.plugin(llmOpenai, config)` registers one route on `ctx.llm` (a
 * `routePlugin` of `@bridle/llm/adapter-kit`): its key and credential headers are filtered from the moment it loads
 * (docs/security.md#what-is-filtered); disposing the plugin (or an HMR reload) removes the route and ends its calls in
 * flight, so nothing of it (socket, retry sleep, watchdog) keeps running. `reusable`: a deployment that talks to two
 * servers mounts two rows.
 */
import { routePlugin } from '@bridle/llm/adapter-kit'
import { OpenAICompatAdapter } from './adapter.js'
import { resolveConfig, type OpenAICompatConfigInput } from './config.js'

export const { name, inject, reusable, Config, apply } = routePlugin(
  'llm-openai',
  (raw?: OpenAICompatConfigInput | null) => resolveConfig(raw),
  (config) => new OpenAICompatAdapter(config),
)
