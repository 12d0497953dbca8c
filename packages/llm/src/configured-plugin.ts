import type { Context } from 'cordis'

/**
 * The base class of a plugin that takes a config and may be mounted more than once, globally and again under agent
 * scopes, each mount with its own config. It declares what cordis reads (`reusable`, the static `Config` it parses
 * with) and keeps the parsed config as `config`: the object cordis parsed, which a `configParser` parser hands back
 * as it is, or, for a plugin built directly with `new Plugin(ctx, raw)`, `raw` parsed (a bad one throws `ConfigError`).
 *
 *     export class Greeter extends configuredPlugin(Config) {
 *       static inject = ['systemPrompt']
 *       constructor(ctx: Context, config?: GreeterConfigInput | null) {
 *         super(ctx, config)
 *         ctx.systemPrompt.section({ name: 'greeter', order: 50, text: this.config.greeting })
 *       }
 *     }
 */
export function configuredPlugin<Raw, Parsed extends object>(Config: (raw: Raw) => Parsed) {
  return class ConfiguredPlugin {
    static readonly reusable = true
    static readonly Config = Config

    readonly config: Parsed

    constructor(_ctx: Context, config: Raw) {
      this.config = Config(config)
    }
  }
}
