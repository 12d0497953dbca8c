// Compiled on its own (tests/types/tsconfig.json, run by `pnpm typecheck`), against the built declarations: importing
// the package's plugin is all an app or a plugin author needs for `ctx.llm` to typecheck.
import { LlmRuntime } from '@bridle/llm'
import type { Context } from 'cordis'
import { expectTypeOf } from 'vitest'

declare const ctx: Context
ctx.plugin(LlmRuntime)
expectTypeOf(ctx.llm).toEqualTypeOf<LlmRuntime>()
// @ts-expect-error nothing here imports @bridle/tools, so its service is not on Context
void ctx.tools
