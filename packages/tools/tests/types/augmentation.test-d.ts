// Compiled on its own (tests/types/tsconfig.json, run by `pnpm typecheck`), against the built declarations: importing
// the package's plugin is all an app or a plugin author needs for `ctx.tools` to typecheck.
import { ToolRegistry } from '@bridle/tools'
import type { Context } from 'cordis'
import { expectTypeOf } from 'vitest'

declare const ctx: Context
ctx.plugin(ToolRegistry)
expectTypeOf(ctx.tools).toEqualTypeOf<ToolRegistry>()
// @ts-expect-error nothing here imports @bridle/agent-loop, so its service is not on Context
void ctx.agentLoop
