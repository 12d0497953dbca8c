// Type tests (`pnpm lint` typechecks them; vitest never runs them): every Bridle plugin's config type reaches
// `ctx.plugin(Plugin, config)`, so a wrong config is a compile error and a right one compiles.
import { AgentLoop, type AgentLoopConfigInput } from '@bridle/agent-loop'
import { LlmRuntime } from '@bridle/llm'
import * as llmOpenai from '@bridle/llm-openai'
import { Environment } from '@bridle/plugin-environment'
import { ReadFile } from '@bridle/plugin-read-file'
import { ScriptedModel } from '@bridle/plugin-scripted-model'
import { Workspace } from '@bridle/plugin-workspace'
import { SessionStore } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import { SystemPrompt, type SystemPromptConfigInput } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import type { Context } from 'cordis'
import { expectTypeOf } from 'vitest'

declare const ctx: Context

// Right configs compile; plugins without required fields take no config at all.
ctx.plugin(LlmRuntime)
ctx.plugin(SessionStore)
ctx.plugin(ToolRegistry)
ctx.plugin(SystemPrompt)
ctx.plugin(SystemPrompt, {
  persona: 'You answer questions about {{cwd}}.',
  toolOrder: ['read_file', '<unlisted-tools>'],
})
ctx.plugin(SystemPrompt, { persona: null }) // YAML's empty value counts as absent
ctx.plugin(SessionJsonl, { root: '.bridle/sessions', writeBatchMaxDelayMs: 50 })
ctx.plugin(AgentLoop, { maxParallelToolCalls: 4, agents: [{ id: 'helper', cwd: '/srv/app' }] })
ctx.plugin(llmOpenai, {})
ctx.plugin(llmOpenai, { baseURL: 'http://127.0.0.1:8000/v1', apiKeyEnv: null, provider: 'vllm' })
ctx.plugin(Workspace, { git: false })
ctx.plugin(ReadFile, { maxBytes: 4096 })
ctx.plugin(Environment, { environment: 'production', region: 'eu-west-1' })
ctx.plugin(ScriptedModel, { turns: [{ steps: [{ text: 'hello' }] }] })

// Wrong configs do not.
// @ts-expect-error persona is a string
ctx.plugin(SystemPrompt, { persona: 3 })
// @ts-expect-error unknown key (a typo of toolOrder)
ctx.plugin(SystemPrompt, { tooOrder: [] })
// @ts-expect-error writeBatchMaxDelayMs is a number of milliseconds
ctx.plugin(SessionJsonl, { writeBatchMaxDelayMs: '200ms' })
// @ts-expect-error maxParallelToolCalls is a number
ctx.plugin(AgentLoop, { maxParallelToolCalls: 'many' })
// @ts-expect-error a configured agent needs an id
ctx.plugin(AgentLoop, { agents: [{ cwd: '/srv/app' }] })
// @ts-expect-error the runtime takes no options
ctx.plugin(LlmRuntime, { retries: 3 })
// @ts-expect-error baseURL is a string
ctx.plugin(llmOpenai, { baseURL: 8000 })
// @ts-expect-error git is a boolean
ctx.plugin(Workspace, { git: 'yes' })
// @ts-expect-error maxBytes is a number
ctx.plugin(ReadFile, { maxBytes: '4k' })
// @ts-expect-error environment and region are required
ctx.plugin(Environment, { environment: 'production' })
// @ts-expect-error the script needs turns
ctx.plugin(ScriptedModel, {})
// @ts-expect-error the scripted model has no default script, so a config is required
ctx.plugin(ScriptedModel)

// The input types are exported for apps that build a config before loading the plugin.
expectTypeOf<SystemPromptConfigInput['persona']>().toEqualTypeOf<string | null | undefined>()
expectTypeOf<AgentLoopConfigInput>().toHaveProperty('maxParallelToolCalls')
