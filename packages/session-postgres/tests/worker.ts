/**
 * A real agent app over session-postgres: the agent loop, a system prompt, a tool, and the offline scripted model.
 * Used in-process by the delivery tests and bundled into the child processes of the crash, fencing and delivery
 * tests, so every process runs the same app.
 */
import { AgentLoop } from '@bridle/agent-loop'
import { LlmRuntime } from '@bridle/llm'
import { ScriptedModel } from '@bridle/plugin-scripted-model'
import { SessionStore } from '@bridle/session'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import { z } from 'zod'
import { SessionPostgres, type SessionPostgresConfigInput } from '../src/index.js'

/** Every turn: call the `note` tool, then answer quoting its result. */
export const NOTE_TURNS = [
  {
    steps: [
      { reasoning: 'I should write that down.', toolCalls: [{ name: 'note', arguments: { text: 'remember this' } }] },
      { text: 'Noted: {{tool-result}}. Anything else?' },
    ],
  },
]

/** Every turn: one short answer (no tool). */
export const REPLY_TURNS = [{ steps: [{ text: 'ok' }] }]

export interface Worker {
  readonly ctx: Context
  readonly persistence: SessionPostgres
  /** Disposes the app and waits until session-postgres stopped (flushed, leases released). */
  stop(): Promise<void>
}

/** Boots an agent app whose sessions live in PostgreSQL. Resolves once its plugins have started. */
export async function startWorker(
  config: SessionPostgresConfigInput,
  options: { turns?: unknown[]; onToolBody?: (text: string) => void } = {},
): Promise<Worker> {
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  ctx.plugin(SystemPrompt, { persona: 'You keep notes for the user in {{cwd}}.' })
  ctx.plugin(SessionStore)
  ctx.plugin(ToolRegistry)
  ctx.plugin(SessionPostgres, config as never)
  ctx.plugin(AgentLoop, { verifyRequests: true })
  ctx.plugin(ScriptedModel, { turns: options.turns ?? NOTE_TURNS })
  ctx.plugin({
    name: 'notes',
    inject: ['tools'],
    apply(c: Context) {
      let count = 0
      c.tools.register({
        name: 'note',
        description: 'Writes a note down.',
        parameters: z.object({ text: z.string() }),
        execute: ({ text }: { text: string }) => {
          options.onToolBody?.(text)
          return `note ${++count}: ${text}`
        },
      })
    },
  })
  await new Promise((resolve) => setTimeout(resolve, 0))
  const persistence = ctx.get('sessionPersistence') as SessionPostgres | undefined
  if (persistence === undefined || ctx.get('agentLoop') === undefined) throw new Error('the worker app did not start')
  await persistence.ready
  return {
    ctx,
    persistence,
    async stop() {
      await Promise.allSettled(ctx.agentLoop.list().map((agent) => agent.dispose()))
      ctx.registry.delete(SessionPostgres)
      await persistence.whenStopped()
    },
  }
}

/** The agent options every worker uses (the scripted route). */
export const AGENT = { provider: 'scripted', model: 'scripted-demo', cwd: '/srv/notes' } as const
