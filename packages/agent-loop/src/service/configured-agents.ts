import { randomUUID } from 'node:crypto'
import { errorChain } from '@bridle/llm'
import { emitContained } from '@bridle/scope'
import type { Context } from 'cordis'
import { warn } from '../vocabulary/agent-events.js'
import type { ConfiguredAgent } from '../vocabulary/config.js'
import type { CreateAgentOptions, ResumeAgentOptions } from '../vocabulary/types.js'

/** What starting the configured agents needs of the loop (`AgentLoop`, which calls it from its constructor). */
export interface AgentStarter {
  readonly active: boolean
  create(options: CreateAgentOptions): unknown
  resume(sessionId: string, options: ResumeAgentOptions): Promise<unknown>
}

/** Resolves once no live session holds `id` (a disposing predecessor during hot reload detaches first). */
function whenDetached(ctx: Context, id: string): Promise<void> {
  if (!ctx.sessions.get(id)) return Promise.resolve()
  return new Promise((resolve) => {
    const off = ctx.on('session/disposed', (session) => {
      if (session.id !== id) return
      off()
      resolve()
    })
  })
}

/** Resolves once the persistence service is available on `ctx`; the waiting plugin is unloaded afterwards. */
async function whenPersistence(ctx: Context): Promise<void> {
  if (ctx.get('sessionPersistence')) return
  let waiter: { dispose(): unknown } | undefined
  await new Promise<void>((resolve) => {
    waiter = ctx.inject(['sessionPersistence'], () => resolve())
  })
  waiter?.dispose()
}

/**
 * Starts the agents listed in the loop's config, owned by the loop (docs/step-pipeline.md#agents). Without a session id
 * an agent gets `<id>-session-<uuid>`; an exact `sessionId` is resumed when persistence lists it, otherwise created;
 * `resumeSessionId` always resumes (waiting for persistence). A failure warns and emits
 * `agent-loop/config-start-failed` (an emit: each listener's throw or rejection is logged and the next listener still
 * runs); nothing is reported once the loop unloads.
 */
export function startConfiguredAgents(loop: AgentStarter, ctx: Context, agents: readonly ConfiguredAgent[]): void {
  for (const entry of agents) {
    queueMicrotask(() => {
      void startOne(loop, ctx, entry)
    })
  }
}

async function startOne(loop: AgentStarter, ctx: Context, a: ConfiguredAgent): Promise<void> {
  const options = {
    ...(a.provider !== undefined ? { provider: a.provider } : {}),
    ...(a.model !== undefined ? { model: a.model } : {}),
    ...(a.maxTokens !== undefined ? { maxTokens: a.maxTokens } : {}),
    ...(a.maxSteps !== undefined ? { maxSteps: a.maxSteps } : {}),
  }
  const sessionId = a.resumeSessionId ?? a.sessionId ?? `${a.id}-session-${randomUUID()}`
  let mode: 'restore' | 'resume' = a.resumeSessionId !== undefined ? 'resume' : 'restore'
  try {
    if (!loop.active) return
    if (a.resumeSessionId !== undefined) {
      await whenPersistence(ctx)
      await whenDetached(ctx, sessionId)
      if (!loop.active) return
      await loop.resume(sessionId, options)
      return
    }
    if (a.sessionId !== undefined) {
      await whenDetached(ctx, sessionId)
      const persistence = ctx.get('sessionPersistence')
      if (persistence) {
        const stored = await persistence.list()
        if (stored.some((h) => h.id === sessionId)) {
          mode = 'resume'
          if (!loop.active) return
          await loop.resume(sessionId, options)
          return
        }
      }
    }
    if (!loop.active) return
    loop.create({ ...options, sessionId, ...(a.cwd !== undefined ? { cwd: a.cwd } : {}) })
  } catch (error) {
    if (!loop.active) return
    warn(ctx, `agent "${a.id}": config-driven ${mode} of "${sessionId}" failed: ${errorChain(error)}`)
    emitContained(ctx, null, 'agent-loop/config-start-failed', [{ sessionId, error }], (how, failure) =>
      warn(ctx, `event "agent-loop/config-start-failed" listener ${how}: ${errorChain(failure)}`),
    )
  }
}
