import { errorChain } from '@bridle/llm'
import { admittedHooks, lifecycleOf, scopeTarget, waterfall, type Scoped } from '@bridle/scope'
import type { Context, Events } from 'cordis'
import type { Agent } from './agent.js'
import type { Awaitable } from './types.js'

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

/** Logs a contained listener failure without throwing. */
export function warn(ctx: Context, message: string): void {
  try {
    ctx.logger('agent-loop').warn(message)
  } catch {
    // a failing logger must never break the loop
  }
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
  const full = { ...payload, agent }
  const hooks = admittedHooks(ctx, name as string, carrier)
  for (const hook of hooks) {
    let result: unknown
    try {
      result = hook.callback.apply(carrier, [full])
    } catch (error) {
      if (options.veto) throw error
      warn(ctx, `agent event "${String(name)}" listener threw: ${errorChain(error)}`)
      continue
    }
    if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
      ;(result as PromiseLike<unknown>).then(undefined, (error: unknown) =>
        warn(ctx, `agent event "${String(name)}" listener rejected: ${errorChain(error)}`),
      )
    }
  }
}

/** Runs an `agent/*` waterfall for `agent` with `{...payload, agent}` and `fallback` as the innermost stage. */
export function agentWaterfall<
  K extends 'agent/pre-step' | 'agent/request' | 'agent/request-error' | 'agent/compaction',
>(
  ctx: Context,
  agent: Agent,
  name: K,
  payload: Without<Payload<K>>,
  fallback: () => Awaitable<unknown>,
): Promise<unknown> {
  const full = { ...payload, agent }
  const run = waterfall as unknown as (
    c: Context,
    t: object,
    n: string,
    p: unknown,
    f: () => Awaitable<unknown>,
  ) => Awaitable<unknown>
  return Promise.resolve(run(ctx, agentCarrier(agent), name, full, fallback))
}

/** Runs `agent/turn-stopping` as a cordis `serial` dispatch for `agent`. */
export async function turnStopping(ctx: Context, agent: Agent, turn: number, signal: AbortSignal): Promise<void> {
  const dispatch = lifecycleOf(ctx) as unknown as {
    serial(thisArg: object, name: string, payload: unknown): Promise<unknown>
  }
  await dispatch.serial(agentCarrier(agent), 'agent/turn-stopping', { turn, signal, agent })
}
