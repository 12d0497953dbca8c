import type { GenerateOptions, StreamChunk } from '@bridle/llm'
import type { Session } from '@bridle/session'
import type { Context } from 'cordis'

/** The part of an agent the checkpoints read (`@bridle/agent-loop`'s `Agent`). */
interface AgentLike {
  readonly session?: Session
}

// biome-ignore lint/suspicious/noExplicitAny: listeners of any arity and parameter types must be assignable
type Listen = (name: string, listener: (...args: any[]) => unknown, options: { prepend: true }) => () => void

/**
 * Registers the durability checkpoints (docs/persistence.md#checkpoints) on `ctx`: prepended, untagged waterfall
 * listeners that await `ctx.sessions.flush(session)` before they call `next()`, so the guarded action cannot start
 * first.
 *
 * - `llm/stream`: for a request whose `sessionId` names a live session, returns an iterable that flushes on the
 *   first pull and only then calls `next()`, so the adapter is never reached before the flush;
 * - `agent/pre-step`: flushes `agent.session` before the step is decided;
 * - `tools/execute`: flushes `exec.agent.session` before the tool body runs (its `tool/call` is already appended).
 *
 * They fail closed: a rejected flush propagates into the guarded pipeline and the action does not start. The
 * listeners are effects of `ctx` and vanish with it.
 */
export function registerCheckpoints(ctx: Context): void {
  const listen = ctx.on.bind(ctx) as unknown as Listen

  const flushLive = async (session: Session | undefined): Promise<void> => {
    if (session === undefined || ctx.sessions.get(session.id) !== session) return
    await ctx.sessions.flush(session)
  }

  listen(
    'llm/stream',
    (options: GenerateOptions, next: () => AsyncIterable<StreamChunk>): AsyncIterable<StreamChunk> => {
      const id = options.sessionId
      const session = id === undefined ? undefined : ctx.sessions.get(id)
      if (session === undefined) return next()
      return {
        async *[Symbol.asyncIterator]() {
          await flushLive(session)
          yield* next()
        },
      }
    },
    { prepend: true },
  )

  // A step is decided, and a tool body runs, only once the agent's session is durable.
  for (const name of ['agent/pre-step', 'tools/execute']) {
    listen(
      name,
      async (payload: { agent?: AgentLike }, next: () => unknown) => {
        await flushLive(payload?.agent?.session)
        return next()
      },
      { prepend: true },
    )
  }
}
