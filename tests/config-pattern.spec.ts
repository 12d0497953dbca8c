/**
 * One config pattern for every plugin (CONTRIBUTING.md, "Plugin config"): a plugin's `Config` is made with
 * `configParser`, so the constructor's `Config(config)` (in `configuredPlugin`, or in a `HomeService`'s `super` call)
 * keeps the config cordis already parsed (the same object, parsed once) while a plugin built directly with a bad
 * config still throws the same `ConfigError`.
 */
import { AgentLoop } from '@bridle/agent-loop'
import { ClusterWorker } from '@bridle/cluster'
import { LlmRuntime } from '@bridle/llm'
import * as llmOpenai from '@bridle/llm-openai'
import { Compaction } from '@bridle/plugin-compaction'
import { Environment } from '@bridle/plugin-environment'
import { Mcp, McpServer } from '@bridle/plugin-mcp'
import { ReadFile } from '@bridle/plugin-read-file'
import { ScriptedModel } from '@bridle/plugin-scripted-model'
import { Workspace } from '@bridle/plugin-workspace'
import { SessionStore } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import { SessionPostgres } from '@bridle/session-postgres'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'

type ConfigFn = (raw: never) => object

const configs: [string, ConfigFn, unknown][] = [
  ['agent-loop', AgentLoop.Config, { maxParallelToolCalls: 3 }],
  ['cluster', ClusterWorker.Config, { concurrency: 4, agent: { provider: 'scripted' } }],
  ['llm', LlmRuntime.Config, {}],
  ['llm-openai', llmOpenai.Config, { baseURL: 'http://127.0.0.1:1/v1', apiKeyEnv: null }],
  ['plugin-compaction', Compaction.Config, {}],
  ['plugin-environment', Environment.Config, { environment: 'test', region: 'local' }],
  ['plugin-mcp', Mcp.Config, { servers: {} }],
  ['plugin-mcp server', McpServer.Config, { name: 'fs', command: 'node' }],
  ['plugin-read-file', ReadFile.Config, {}],
  ['plugin-scripted-model', ScriptedModel.Config, { turns: [{ steps: [{ text: 'hello' }] }] }],
  ['plugin-workspace', Workspace.Config, { git: false }],
  ['session-jsonl', SessionJsonl.Config, { root: '/tmp/bridle-config-pattern' }],
  ['session-postgres', SessionPostgres.Config, { connectionString: 'postgres://127.0.0.1:1/x' }],
  ['system-prompt', SystemPrompt.Config, {}],
]

describe("every plugin's Config", () => {
  it.each(configs)('%s: hands back a config it parsed, unchanged', (_name, Config, raw) => {
    const parsed = Config(raw as never)
    expect(Config(parsed as never)).toBe(parsed)
    expect(Config(structuredClone(raw) as never)).not.toBe(parsed)
  })
})

describe('a plugin loaded through cordis', () => {
  it('keeps the config object cordis parsed (its constructor does not parse it again)', async () => {
    const ctx = new Context()
    ctx.plugin(SessionStore)
    ctx.plugin(LlmRuntime)
    ctx.plugin(ToolRegistry)
    ctx.plugin(SystemPrompt)
    const parsed = AgentLoop.Config({ maxParallelToolCalls: 2 })
    ctx.plugin(AgentLoop, parsed)
    await ctx.lifecycle.flush()
    expect(ctx.agentLoop.config).toBe(parsed)
    const workspace = Workspace.Config({ git: false })
    let built: Workspace | undefined
    ctx.plugin({
      name: 'probe',
      inject: ['systemPrompt'],
      apply: (c: Context) => {
        built = new Workspace(c, workspace)
      },
    })
    await ctx.lifecycle.flush()
    expect(built?.config).toBe(workspace)
    await ctx.lifecycle.stop?.()
  })

  it('built directly with a bad config, throws the same ConfigError as Config does', () => {
    const ctx = new Context()
    ctx.plugin(SystemPrompt)
    expect(() => new Workspace(ctx, { gitTimeoutMs: 1 })).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        message: expect.stringMatching(/^plugin-workspace: invalid config: gitTimeoutMs: /),
      }),
    )
  })
})
