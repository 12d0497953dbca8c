import type { Context } from 'cordis'
import { z } from 'zod'
import { configParser, parseConfig } from '@bridle/llm'
import { createScriptedAdapter } from './adapter.js'
import { ScriptedTurnSchema } from './script.js'

export const ConfigSchema = z
  .object({
    /** The route name registered on `ctx.llm`. */
    provider: z.string().min(1).default('scripted'),
    /** The model id reported for requests on this route. */
    model: z.string().min(1).default('scripted-demo'),
    turns: z.array(ScriptedTurnSchema).min(1),
    delayMs: z.number().int().min(0).max(1000).default(0),
    /** Answer to summary requests (`purpose: 'compaction'`); default: the user's prompts, listed. */
    summary: z.string().min(1).optional(),
    /** The context window advertised for the model (lets a compaction policy judge requests offline). */
    contextWindow: z.number().int().positive().optional(),
  })
  .strict()

export type ScriptedModelConfig = z.infer<typeof ConfigSchema>
/** What an app passes to `ctx.plugin(ScriptedModel, config)`. */
export type ScriptedModelConfigInput = z.input<typeof ConfigSchema>

/** Parses a raw config, throwing `ConfigError` that names this plugin and each failing field. */
export const Config = configParser(
  (raw: ScriptedModelConfigInput): ScriptedModelConfig =>
    parseConfig('@bridle/plugin-scripted-model', ConfigSchema, raw),
)

/**
 * The scripted offline model as a cordis plugin: registers one route on `ctx.llm` that answers from
 * `turns`. Disposing the plugin unregisters the route (the registration is an effect of this context).
 */
export const ScriptedModel = {
  name: '@bridle/plugin-scripted-model',
  inject: ['llm'],
  Config,
  apply(ctx: Context, config: ScriptedModelConfig) {
    ctx.llm.registerAdapter([config.provider], createScriptedAdapter(config))
  },
}
