import { cpSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { AgentLoop } from '@bridle/agent-loop'
import { createUserMessage, LlmRuntime } from '@bridle/llm'
import * as llmOpenai from '@bridle/llm-openai'
import { Compaction } from '@bridle/plugin-compaction'
import { ReadFile } from '@bridle/plugin-read-file'
import { ScriptedModel } from '@bridle/plugin-scripted-model'
import { Workspace } from '@bridle/plugin-workspace'
import { SessionStore, type SessionPersistence } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { ViewSource } from '../src/index.js'

const SAMPLE = fileURLToPath(new URL('../../../examples/demo/sample-project', import.meta.url))

/** The persona of the test agent; the fixture changes it between turns as a redeployed app would. */
export const PERSONA = 'You answer questions about the project in {{cwd}}.'

/** The scripted offline model's script: a question about the package name reads package.json and answers. */
const SCRIPT = {
  turns: [
    {
      match: 'package|name',
      steps: [
        {
          reasoning: 'The package name is in the manifest, so I will read package.json first.',
          toolCalls: [{ name: 'read_file', arguments: { path: 'package.json' } }],
        },
        { text: 'The package is named `{{tool-result:match:"name":\\s*"([^"]+)"}}` (from package.json).' },
      ],
    },
    { steps: [{ text: 'This answer comes from the scripted offline model, not a language model.' }] },
  ],
}

/** A throwaway app folder: a copy of the demo's sample project (the agent's cwd) and a `sessions/` folder. */
export interface TestApp {
  dir: string
  sessions: string
  project: string
}

export function makeApp(): TestApp {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-view-'))
  const project = join(dir, 'sample-project')
  cpSync(SAMPLE, project, { recursive: true })
  return { dir, sessions: join(dir, 'sessions'), project }
}

export interface AskOptions {
  /** Resume this stored session instead of starting a new one. */
  session?: string
  persona?: string
  /** An OpenAI-compatible server to ask instead of the scripted model (route `mock`, model `mock-usage`). */
  baseURL?: string
  /** Loads `@bridle/plugin-compaction` with this config. */
  compaction?: Record<string, unknown>
}

/**
 * Runs one turn of an agent app over `app` (the core packages, JSONL sessions, the workspace and read_file plugins,
 * the scripted model unless `baseURL`), as an application process would: boot, ask `prompt`, wait for the turn, shut
 * down with the log flushed. Resolves the session id.
 */
export async function ask(app: TestApp, prompt: string, options: AskOptions = {}): Promise<string> {
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  ctx.plugin(SystemPrompt, { persona: options.persona ?? PERSONA })
  ctx.plugin(SessionStore)
  ctx.plugin(ToolRegistry)
  ctx.plugin(SessionJsonl, { root: app.sessions })
  ctx.plugin(AgentLoop)
  if (options.baseURL === undefined) ctx.plugin(ScriptedModel, SCRIPT)
  else ctx.plugin(llmOpenai, { provider: 'mock', baseURL: options.baseURL, apiKeyEnv: null })
  ctx.plugin(Workspace)
  ctx.plugin(ReadFile)
  if (options.compaction) ctx.plugin(Compaction, options.compaction)
  await ctx.lifecycle.flush()
  const route =
    options.baseURL === undefined
      ? { provider: 'scripted', model: 'scripted-demo' }
      : { provider: 'mock', model: 'mock-usage' }
  const agent =
    options.session === undefined
      ? ctx.agentLoop.create({ ...route, cwd: app.project })
      : await ctx.agentLoop.resume(options.session, route)
  try {
    agent.followup(createUserMessage(prompt))
    await agent.whenIdle()
    const end = [...agent.session.events].reverse().find((event) => event.type === 'turn/end')
    const reason = (end?.data as { reason?: { kind?: string } } | undefined)?.reason?.kind
    if (reason !== 'completed') throw new Error(`the turn of "${prompt}" ended ${reason}`)
    return agent.id
  } finally {
    await ctx.sessions.flush(agent.session)
    await agent.dispose()
    const persistence = ctx.get('sessionPersistence') as { whenStopped?: () => Promise<void> } | undefined
    ctx.scope.dispose()
    await ctx.lifecycle.flush()
    await persistence?.whenStopped?.()
  }
}

/** A read side over `app`'s sessions, as a host application would mount the viewer: the store and the backend only. */
export interface OpenedSource {
  persistence: SessionPersistence
  source: ViewSource
  close(): Promise<void>
}

export async function openSource(app: TestApp): Promise<OpenedSource> {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(SessionJsonl, { root: app.sessions })
  await ctx.lifecycle.flush()
  const persistence = ctx.sessionPersistence!
  return {
    persistence,
    source: new ViewSource(persistence),
    async close() {
      const persistence = ctx.get('sessionPersistence') as { whenStopped?: () => Promise<void> } | undefined
      ctx.scope.dispose()
      await ctx.lifecycle.flush()
      await persistence?.whenStopped?.()
    },
  }
}
