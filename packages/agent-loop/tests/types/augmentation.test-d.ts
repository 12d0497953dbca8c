// Compiled on its own (tests/types/tsconfig.json, run by `pnpm typecheck`), against the built declarations: importing
// the package's plugin is all an app or a plugin author needs for `ctx.agentLoop` to typecheck.
import { type Agent, AgentLoop } from '@bridle/agent-loop'
import type { Context, Events } from 'cordis'
import { expectTypeOf } from 'vitest'

declare const ctx: Context
ctx.plugin(AgentLoop)
expectTypeOf(ctx.agentLoop).toEqualTypeOf<AgentLoop>()

// Every payload's `agent` is the `Agent` class (the vocabulary's interface, completed by the class), both ways round.
declare const payload: Parameters<Events['agent/status']>[0]
expectTypeOf(payload.agent).toMatchTypeOf<Agent>()
expectTypeOf<Agent>().toMatchTypeOf<typeof payload.agent>()
const agent: Agent = payload.agent
expectTypeOf(ctx.agent).toMatchTypeOf<Agent | undefined>()
expectTypeOf(agent.followup).toBeFunction()
