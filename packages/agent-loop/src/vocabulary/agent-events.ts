import { errorChain } from '@bridle/llm'
import {
  type Awaitable,
  admittedListeners,
  dispatchContained,
  runWaterfall,
  type Scoped,
  scopeTarget,
  serialDispatch,
  type WaterfallResult,
  warnContained,
} from '@bridle/scope'
import type { Context, Events } from 'cordis'
import type { Agent } from './agent.js'

type Payload<K extends keyof Events> = Events[K] extends (payload: infer P, ...rest: never[]) => unknown ? P : never
type Without<P> = Omit<P, 'agent'>

const carriers = new WeakMap<Agent, Scoped<Agent>>()

/**
 * The dispatch carrier of one agent: admits untagged listeners and those on the agent's scope chain. Built once per
 * agent (a carrier reads the chain live, so it never goes stale); a new one per event cost a weak-map insert each.
 */
export function agentCarrier(agent: Agent): Scoped<Agent> {
  let carrier = carriers.get(agent)
  if (carrier === undefined) carriers.set(agent, (carrier = scopeTarget(agent, agent)))
  return carrier
}

/** Logs a contained failure on the `agent-loop` logger without throwing. */
export function warn(ctx: Context, message: string): void {
  warnContained(ctx, 'agent-loop', message)
}

/**
 * Emits an `agent/*` notification to the listeners admitted for `agent`, one by one, with
 * `{...payload, agent}` (agent last so callers cannot spoof it). A synchronous throw is logged as
 * `agent event "<name>" listener threw: …`, a rejection as `… listener rejected: …`; the remaining
 * listeners still run. With `veto`, the first synchronous throw propagates instead (used by
 * `agent/created`).
 */
export function emitAgentEvent<K extends keyof Events>(
  ctx: Context,
  agent: Agent,
  name: K,
  payload: Without<Payload<K>>,
  options: { veto?: boolean } = {},
): void {
  const carrier = agentCarrier(agent)
  dispatchContained(
    admittedListeners(ctx, name, carrier),
    carrier,
    [{ ...payload, agent }],
    (how, error) => warn(ctx, `agent event "${String(name)}" listener ${how}: ${errorChain(error)}`),
    options,
  )
}

/** The `agent/*` waterfalls: each resolves to what its listeners (or the loop's fallback) decide. */
export type AgentWaterfall = 'agent/pre-step' | 'agent/request' | 'agent/request-error' | 'agent/compaction'

/** What waterfall `K` resolves to. */
export type WaterfallDecision<K extends AgentWaterfall> = Awaited<WaterfallResult<Events[K]>>

/** Runs an `agent/*` waterfall for `agent` with `{...payload, agent}` and `fallback` as the innermost stage. */
export async function agentWaterfall<K extends AgentWaterfall>(
  ctx: Context,
  agent: Agent,
  name: K,
  payload: Without<Payload<K>>,
  fallback: () => Awaitable<WaterfallDecision<K>>,
): Promise<WaterfallDecision<K>> {
  return runWaterfall(ctx, agentCarrier(agent), name, [{ ...payload, agent }], fallback)
}

/** Runs `agent/turn-stopping` as a cordis `serial` dispatch for `agent`. */
export async function turnStopping(ctx: Context, agent: Agent, turn: number, signal: AbortSignal): Promise<void> {
  await serialDispatch(ctx, agentCarrier(agent), 'agent/turn-stopping', { turn, signal, agent })
}
