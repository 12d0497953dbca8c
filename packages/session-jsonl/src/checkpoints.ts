import type { GenerateOptions, StreamChunk } from '@bridle/llm'
import { onUntraced, rawService } from '@bridle/scope'
import type { Session, SessionStore } from '@bridle/session'
import type { Context } from 'cordis'

/** The part of an agent the checkpoints read (`@bridle/agent-loop`'s `Agent`). */
interface AgentLike {
  readonly session?: Session
}

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
 * listeners are effects of `ctx` and vanish with it. They run at every step, so they read the session store as the
 * object itself and are called without upstream's per-call tracing (their arguments are plain data).
 */
export function registerCheckpoints(ctx: Context): void {
  const sessions = () => rawService<SessionStore>(ctx, 'sessions')
  const listen = (name: string, listener: (...args: never[]) => unknown) =>
    onUntraced(ctx, name, listener, { prepend: true })

  const flushLive = async (session: Session | undefined): Promise<void> => {
    const store = sessions()
    if (session === undefined || store?.get(session.id) !== session) return
    await store.flush(session)
  }

  listen('llm/stream', ((
    options: GenerateOptions,
    next: () => AsyncIterable<StreamChunk>,
  ): AsyncIterable<StreamChunk> => {
    const id = options.sessionId
    const session = id === undefined ? undefined : sessions()?.get(id)
    if (session === undefined) return next()
    return {
      async *[Symbol.asyncIterator]() {
        await flushLive(session)
        yield* next()
      },
    }
  }) as never)

  // A step is decided, and a tool body runs, only once the agent's session is durable.
  for (const name of ['agent/pre-step', 'tools/execute']) {
    listen(name, (async (payload: { agent?: AgentLike }, next: () => unknown) => {
      await flushLive(payload?.agent?.session)
      return next()
    }) as never)
  }
}
