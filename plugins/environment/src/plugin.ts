import type {} from '@bridle/system-prompt'
import { configuredPlugin } from '@bridle/llm'
import type { Context } from 'cordis'
import { Config, type EnvironmentConfigInput } from './config.js'
import { renderEnvironment } from './render.js'

/** Order of the environment context among runtime contexts (after the workspace contexts at 10 and 20). */
export const ENVIRONMENT_CONTEXT_ORDER = 30
/** Prompt variables this plugin registers (usable in the persona, e.g. `Serving {{region}}.`). */
export const REGION_VARIABLE = 'region'
export const ENVIRONMENT_VARIABLE = 'environment'

/**
 * `@bridle/plugin-environment`: a named runtime context with the deployment's `environment` and `region` (plus
 * configured public labels) and the prompt variables `{{environment}}` and `{{region}}`.
 *
 * Load it globally with `ctx.plugin(Environment, config)`. Load it again through an agent's `agent.ctx` to override
 * the values for that agent only: its context and variables shadow the global ones in that agent's assembly. Secrets
 * never pass: the plugin reads nothing but its own validated config.
 */
export class Environment extends configuredPlugin(Config) {
  static inject = ['systemPrompt']

  constructor(ctx: Context, config?: EnvironmentConfigInput | null) {
    super(ctx, config)
    const text = renderEnvironment(this.config)
    ctx.systemPrompt.context({ name: this.config.contextName, order: ENVIRONMENT_CONTEXT_ORDER, text })
    ctx.systemPrompt.variable(ENVIRONMENT_VARIABLE, () => this.config.environment)
    ctx.systemPrompt.variable(REGION_VARIABLE, () => this.config.region)
  }
}
