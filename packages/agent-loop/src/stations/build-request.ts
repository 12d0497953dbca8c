import {
  type CachePlan,
  deepFreeze,
  LlmError,
  markLoopRequest,
  type GenerateOptions,
  type LlmCallConfig,
  type Message,
  type PreparedLlmCall,
  type ToolSchema,
} from '@bridle/llm'
import {
  canonicalHeader,
  headerEquals,
  sectionManifest,
  type EpochHeader,
  type SystemSectionSpan,
} from '@bridle/session'
import { agentWaterfall } from '../vocabulary/agent-events.js'
import { cacheFactsKnown, noteHeader, planRequestCache } from './cache-plan.js'
import { service, type AgentRuntime } from './runtime.js'

/** Inputs of station S10 for one attempt. */
export interface BuildRequestInput {
  turn: number
  step: number
  tools: readonly ToolSchema[]
  system: string
  /** Which section produced which span of `system`; logged as the header's section manifest. */
  sections: readonly SystemSectionSpan[]
  messages: readonly Message[]
  signal: AbortSignal
}

/** A frozen, loop-marked request and how to dispatch it. */
export interface BuiltRequest {
  request: GenerateOptions
  header: EpochHeader
  /** `undefined` for an unprepared route (`NO_ADAPTER`): dispatch through `ctx.llm.stream`. */
  prepared: PreparedLlmCall | undefined
}

function omitUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v
  return out as T
}

/**
 * The default `agent/request` config (the waterfall's innermost stage). The first request of this Agent instance starts
 * from the agent options (restoring `reasoningEffort` from the folded header only for the same route and only when it
 * was not adapter-supplied); later ones start from the folded header minus adapter-supplied fields, so a route switch
 * materializes its own defaults. Returns a deep-frozen clone.
 */
function seedConfig(rt: AgentRuntime): LlmCallConfig {
  const folded = rt.session.requestHeader()
  const options = rt.agent.options
  let seed: LlmCallConfig
  if (!rt.requests.headerLogged || !folded) {
    seed = { provider: options.provider ?? '', model: options.model ?? '' }
    if (
      folded &&
      folded.config.provider === seed.provider &&
      folded.config.model === seed.model &&
      folded.config.reasoningEffort !== undefined &&
      folded.adapterDefaults?.reasoningEffort !== true
    ) {
      seed.reasoningEffort = folded.config.reasoningEffort
    }
    if (options.maxTokens !== undefined) seed.maxTokens = options.maxTokens
  } else {
    seed = { ...folded.config } as LlmCallConfig // the clone below detaches it
    if (folded.adapterDefaults?.reasoningEffort) delete seed.reasoningEffort
    if (folded.adapterDefaults?.maxTokens) delete seed.maxTokens
  }
  return deepFreeze(omitUndefined(structuredClone(seed)))
}

/**
 * Station S10 up to the frozen request (docs/step-pipeline.md#step-stations-s7-to-s10): `agent/request` → `prepareCall`
 * → canonical header → `request/header` (first request of the instance, or changed) → `request/context` (changed) →
 * deep-frozen, loop-marked request. Throws on a missing route, on any `prepareCall` failure other than `NO_ADAPTER`,
 * and when the signal aborts between stages.
 */
export async function buildRequest(rt: AgentRuntime, input: BuildRequestInput): Promise<BuiltRequest> {
  const { turn, step, signal } = input
  const seed = seedConfig(rt)
  const proposed = await agentWaterfall(rt.ctx, rt.agent, 'agent/request', { turn, step, signal }, () => seed)
  signal.throwIfAborted()
  if (!proposed?.provider || !proposed.model) {
    throw new Error(
      `agent "${rt.agent.id}" has no provider/model: set AgentOptions.provider and AgentOptions.model or supply both via the agent/request waterfall`,
    )
  }
  let prepared: PreparedLlmCall | undefined
  let config: LlmCallConfig
  try {
    prepared = await service(rt, 'llm').prepareCall(proposed, signal)
    config = prepared.config
  } catch (error) {
    if (!(error instanceof LlmError && error.code === 'NO_ADAPTER')) throw error
    prepared = undefined
    config = proposed
  }
  signal.throwIfAborted()

  // canonicalHeader keeps adapterDefaults only with a true flag, and system and tools only when non-empty.
  const header = canonicalHeader({
    config,
    adapterDefaults: prepared?.adapterDefaults,
    system: input.system,
    tools: [...input.tools],
  })
  logHeader(rt, header, input.system, input.sections)
  logContext(rt, config, prepared?.context?.contextWindow)

  signal.throwIfAborted()
  // The folded header equals `header` now; building from it keeps system/tools identical objects across
  // steps while nothing changed (cheap freezing and digesting).
  const sent = rt.session.requestHeader() ?? header
  const cache = planRequestCache(
    rt,
    prepared,
    { turn, step },
    {
      ...sent.config,
      ...(sent.system === undefined ? {} : { system: sent.system }),
      ...(sent.tools === undefined ? {} : { tools: sent.tools }),
      messages: input.messages,
      spans: input.sections,
    },
  )
  const request = markLoopRequest(freezeRequest(sent, input.messages, rt.session.id, signal, cache))
  return { request, header, prepared }
}

/**
 * Builds the deep-frozen request `{...config, messages, system?, tools?, sessionId, signal}`. The history is
 * the session's frozen derivation of deep-frozen messages, so it is not walked again (a walk would cost
 * O(history) per step); anything else is deep-frozen here.
 */
function freezeRequest(
  sent: EpochHeader,
  messages: readonly Message[],
  sessionId: string,
  signal: AbortSignal,
  cache: CachePlan | undefined,
): GenerateOptions {
  const request = {
    ...deepFreeze(sent).config,
    messages: Object.isFrozen(messages) ? messages : deepFreeze(messages),
    ...(sent.system !== undefined ? { system: sent.system } : {}),
    ...(sent.tools !== undefined ? { tools: sent.tools } : {}),
    ...(cache !== undefined ? { cache: deepFreeze(cache) } : {}),
    sessionId,
    signal,
  } as GenerateOptions
  return Object.freeze(request)
}

/**
 * Appends `request/header`: always on the instance's first request, later only when it changed. The payload's
 * `sections` manifest (digested only here, so an unchanged step pays nothing for it) lets a reader name the
 * sections of `header.system` from the log alone.
 */
function logHeader(rt: AgentRuntime, header: EpochHeader, system: string, spans: readonly SystemSectionSpan[]): void {
  const folded = rt.session.requestHeader()
  const record = (reason: 'initial' | 'resume' | 'change') => ({
    header,
    reason,
    sections: sectionManifest(system, spans),
  })
  let logged: ReturnType<typeof record> | undefined
  if (!rt.requests.headerLogged) {
    logged = record(folded ? 'resume' : 'initial')
    rt.session.append('request/header', logged)
    rt.requests.headerLogged = true
  } else if (!folded || !headerEquals(folded, header)) {
    logged = record('change')
    rt.session.append('request/header', logged)
  }
  // the cache placement counts section and tool changes; before its first use it reads them from the log instead
  if (logged !== undefined && cacheFactsKnown(rt)) noteHeader(rt, logged.sections, header.tools)
}

/** Appends `request/context` when route or advertised capacity differs from the folded record. */
function logContext(rt: AgentRuntime, config: LlmCallConfig, contextWindow: number | undefined): void {
  const folded = rt.session.requestContext()
  if (
    folded &&
    folded.provider === config.provider &&
    folded.model === config.model &&
    folded.contextWindow === contextWindow
  ) {
    return
  }
  rt.session.append('request/context', {
    provider: config.provider,
    model: config.model,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
  })
}
