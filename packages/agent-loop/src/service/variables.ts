import type { Context } from 'cordis'

/**
 * Registers the loop's three global prompt variables, in order: `provider`, `model` (from the agent's
 * options) and `cwd` (from its session header). Each is "registered, but no value" (`undefined`) for
 * an assembly without an agent or without that fact. They live as long as the loop's context.
 */
export function registerLoopVariables(ctx: Context): void {
  const sp = ctx.systemPrompt
  sp.variable('provider', (c) => c.agent?.options.provider)
  sp.variable('model', (c) => c.agent?.options.model)
  sp.variable('cwd', (c) => c.agent?.session.header.cwd)
}
