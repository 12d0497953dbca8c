import type { Inbox } from '@bridle/inbox'
import type { RequestDigester, Session } from '@bridle/session'
import { rawService } from '@bridle/scope'
import type { Context } from 'cordis'
import type { Agent } from '../vocabulary/agent.js'
import type { ResolvedAgentLoopConfig } from '../vocabulary/config.js'
import type { RuntimeContextProjection } from './runtime-context.js'
import type { CompactionOutcome } from '../vocabulary/types.js'

/** Driver phase `idle`: nothing runs; `lastTurn` is the number of the last opened turn. */
interface IdlePhase {
  kind: 'idle'
  lastTurn: number
}

/** Driver phase `running`: one turn's controller, its turn and last opened step, and a latched wake. */
export interface RunningPhase {
  kind: 'running'
  abort: AbortController
  turn: number
  step: number
  wakeRequested: boolean
}

/** Per-instance request facts: whether this instance logged a header yet, and the digest chain. */
interface RequestState {
  headerLogged: boolean
  digester: RequestDigester
}

/** A pending `agent.compact()`: served by the next compaction turn. */
interface ManualCompaction {
  resolve(outcome: CompactionOutcome): void
}

/** Compaction state between steps: manual requests waiting for a compaction turn, and the last step's outcome. */
interface CompactionState {
  waiting: ManualCompaction[]
  /** The outcome of the compaction step that just ended; read (and cleared) by the next step's compaction point. */
  previous: CompactionOutcome | undefined
  /**
   * Resolutions of served `agent.compact()` calls held until the driver is idle: a caller that sends a prompt as soon
   * as its compaction is done must find an idle agent to wake, not a driver about to stop.
   */
  settle: (() => void)[]
}

/**
 * The internals one agent's stations share. The `Agent` owns it; the station functions (proposal,
 * pre-step, step, request building, tool calls, turn) receive it instead of reaching into the class.
 */
export interface AgentRuntime {
  readonly agent: Agent
  /** The loop's config (`verifyRequests`, `maxParallelToolCalls`). */
  readonly config: ResolvedAgentLoopConfig
  /** The AgentLoop's own context: services (`llm`, `tools`, `systemPrompt`) and event dispatch. */
  readonly ctx: Context
  readonly session: Session
  readonly inbox: Inbox
  readonly projection: RuntimeContextProjection
  readonly requests: RequestState
  readonly compaction: CompactionState
  phase: IdlePhase | RunningPhase
}

/** The running phase, or a `TypeError` if the driver is idle (a loop bug). */
export function running(rt: AgentRuntime): RunningPhase {
  if (rt.phase.kind !== 'running') throw new TypeError(`agent "${rt.agent.id}" driver is not running`)
  return rt.phase
}

/**
 * One of the loop's injected services, as the object itself (`rawService`): the same service `ctx[name]` returns,
 * without upstream's proxies. Reading it through the context built an `Error` and ran the undeclared-inject diagnostic
 * (tens of microseconds); `ctx.get` still went through two proxy layers; and each method called through the proxy forked
 * a shadow context for every property it read. The loop only calls methods that do not register anything on the
 * caller's context (`assemble`, `prepareCall`, `stream`, `retryPolicy`, the tool pipeline), so the raw object serves.
 */
export function service<K extends 'llm' | 'systemPrompt' | 'tools'>(rt: AgentRuntime, name: K): Context[K] {
  return rawService(rt.ctx, name) as Context[K]
}
