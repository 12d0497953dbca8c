/**
 * The apps of the cluster tests: a worker (a real agent app over session-postgres with the cluster worker: the agent
 * loop, a system prompt, a `note` tool and the offline scripted model) and a front (`startFront` over its own
 * session-postgres). Used in-process and bundled into the child processes of the crash tests, so every process runs
 * the same app.
 */
import { AgentLoop } from '@bridle/agent-loop'
import { LlmRuntime } from '@bridle/llm'
import { ScriptedModel } from '@bridle/plugin-scripted-model'
import { shutdown } from '@bridle/scope'
import { SessionStore } from '@bridle/session'
import { SessionPostgres } from '@bridle/session-postgres'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import { z } from 'zod'
import { ClusterWorker, startFront, type ClusterWorkerConfigInput, type Front } from '../src/index.js'

/** Every turn: call the `note` tool, then answer quoting its result. */
export const NOTE_TURNS = [
  {
    steps: [
      { reasoning: 'I should write that down.', toolCalls: [{ name: 'note', arguments: { text: 'remember this' } }] },
      { text: 'Noted: {{tool-result}}.' },
    ],
  },
]

export interface ClusterDb {
  url: string
  schema: string
  queueSchema: string
}

export interface WorkerApp {
  readonly ctx: Context
  readonly worker: ClusterWorker
  /** Drains the worker (finishing its jobs) and disposes the app. */
  stop(graceMs?: number): Promise<void>
}

/** Boots a worker app; resolves once it takes jobs. */
export async function startWorkerApp(
  db: ClusterDb,
  options: {
    worker?: ClusterWorkerConfigInput
    leaseMs?: number
    latencyMs?: number
    writeBatchMaxDelayMs?: number
    poolSize?: number
  } = {},
): Promise<WorkerApp> {
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  ctx.plugin(SystemPrompt, { persona: 'You keep notes for the user.' })
  ctx.plugin(SessionStore)
  ctx.plugin(ToolRegistry)
  ctx.plugin(SessionPostgres, {
    connectionString: db.url,
    schema: db.schema,
    poolSize: options.poolSize ?? 4,
    leaseMs: options.leaseMs ?? 2_000,
    leaseWaitMs: (options.leaseMs ?? 2_000) * 2,
    writeBatchMaxDelayMs: options.writeBatchMaxDelayMs ?? 5,
  })
  ctx.plugin(AgentLoop, { verifyRequests: true })
  ctx.plugin(ScriptedModel, { turns: NOTE_TURNS })
  ctx.plugin({
    name: 'notes',
    inject: ['tools'],
    apply(c: Context) {
      let count = 0
      c.tools.register({
        name: 'note',
        description: 'Writes a note down.',
        parameters: z.object({ text: z.string() }),
        execute: ({ text }: { text: string }) => `note ${++count}: ${text}`,
      })
    },
  })
  if (options.latencyMs !== undefined) delayModel(ctx, options.latencyMs)
  ctx.plugin(ClusterWorker, {
    queueSchema: db.queueSchema,
    handoverSeconds: 1,
    maintenanceIntervalSeconds: 1,
    pollingIntervalSeconds: 1,
    sweepIntervalMs: 1_000,
    agent: { provider: 'scripted', model: 'scripted-demo' },
    ...options.worker,
  })
  await new Promise((resolve) => setTimeout(resolve, 0))
  const worker = ctx.get('clusterWorker') as ClusterWorker | undefined
  if (worker === undefined) throw new Error('the cluster worker did not start')
  await worker.ready
  return {
    ctx,
    worker,
    async stop(graceMs = 30_000) {
      await worker.drain(graceMs)
      await shutdown(ctx)
    },
  }
}

/** Every model call waits `ms` before its first chunk (a fixed model latency, as a provider's would be). */
export function delayModel(ctx: Context, ms: number): void {
  type Next = () => AsyncIterable<unknown>
  const on = ctx.on.bind(ctx) as unknown as (name: string, listener: (o: unknown, next: Next) => unknown) => void
  on('llm/stream', (_options, next) =>
    (async function* () {
      await new Promise((resolve) => setTimeout(resolve, ms))
      yield* next()
    })(),
  )
}

export interface FrontApp {
  readonly ctx: Context
  readonly front: Front
  stop(): Promise<void>
}

/** Boots a front (`bridle serve`'s server) over the sessions in `db`. */
export async function startFrontApp(
  db: ClusterDb,
  token: string,
  options: { maxBodyBytes?: number; log?: (line: string) => void } = {},
): Promise<FrontApp> {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(SessionPostgres, { connectionString: db.url, schema: db.schema, poolSize: 4, writeBatchMaxDelayMs: 5 })
  await new Promise((resolve) => setTimeout(resolve, 0))
  const front = await startFront({
    ctx,
    tokens: [token],
    queueSchema: db.queueSchema,
    viewer: true,
    ...options,
  })
  return {
    ctx,
    front,
    async stop() {
      await front.close()
      await shutdown(ctx)
    },
  }
}
