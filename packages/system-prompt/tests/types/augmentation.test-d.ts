// Compiled on its own (tests/types/tsconfig.json, run by `pnpm typecheck`), against the built declarations: importing
// the package's plugin is all an app or a plugin author needs for `ctx.systemPrompt` to typecheck.
import { SystemPrompt } from '@bridle/system-prompt'
import type { Context } from 'cordis'
import { expectTypeOf } from 'vitest'

declare const ctx: Context
ctx.plugin(SystemPrompt)
expectTypeOf(ctx.systemPrompt).toEqualTypeOf<SystemPrompt>()
// @ts-expect-error nothing here imports @bridle/tools, so its service is not on Context
void ctx.tools
