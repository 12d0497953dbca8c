import type {} from '@bridle/agent-loop'
import { configuredPlugin } from '@bridle/llm'
import type { Context } from 'cordis'
import { Config } from './config.js'
import { CompactionPolicy } from './policy.js'

/**
 * `@bridle/plugin-compaction`: the compaction policy of every agent it can see. It answers the agent loop's
 * `agent/compaction` point (before each step's request is sent, and for `agent.compact()`) and hears
 * `agent/compacted`. Load it with `ctx.plugin(Compaction, config)`; loaded through an agent's `agent.ctx` it serves
 * that agent only. Another listener's plan (from `next()`) takes precedence.
 */
export class Compaction extends configuredPlugin(Config) {
  readonly policy: CompactionPolicy

  constructor(ctx: Context, config?: unknown) {
    super(ctx, config)
    const logger = ctx.logger('plugin-compaction')
    const policy = (this.policy = new CompactionPolicy(this.config, (message) => logger.warn(message)))
    ctx.on('agent/compaction', async (payload, next) => (await next()) ?? policy.decide(payload))
    ctx.on('agent/compacted', ({ agent, outcome }) => policy.observe(agent, outcome))
  }
}
