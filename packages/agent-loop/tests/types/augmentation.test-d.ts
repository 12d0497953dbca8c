// Compiled on its own (tests/types/tsconfig.json, run by `pnpm typecheck`), against the built declarations: importing
// the package's plugin is all an app or a plugin author needs for `ctx.agentLoop` to typecheck.
import { AgentLoop } from '@bridle/agent-loop'
import type { Context } from 'cordis'
import { expectTypeOf } from 'vitest'

declare const ctx: Context
ctx.plugin(AgentLoop)
expectTypeOf(ctx.agentLoop).toEqualTypeOf<AgentLoop>()
