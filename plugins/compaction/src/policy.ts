import type { Agent, CompactionOutcome, CompactionPayload, CompactionPlan } from '@bridle/agent-loop'
import { callConfigOf, LlmError, type GenerateOptions, type LlmCallConfig } from '@bridle/llm'
import type { CompactionConfig } from './config.js'
import { TokenEstimator } from './estimate.js'
import { checkpointMessage, instructionMessage } from './messages.js'
import { projectInput, type Projection } from './projection.js'
import { summarizedCount } from './span.js'

/** A projection as the policy made it, with the step it was made for and the window it was judged against. */
export interface ProjectionRecord extends Projection {
  readonly turn: number
  readonly step: number
  readonly contextWindow: number | undefined
}

interface AgentState {
  readonly estimator: TokenEstimator
  /** The turn in which an automatic summary request failed: no second try in that turn. */
  failedTurn?: number
  warnedNoWindow?: boolean
  last?: ProjectionRecord
}

/**
 * The decisions of `@bridle/plugin-compaction`, one state per agent: at each compaction point, project the request's
 * input tokens, compact when they cross `threshold × window` (or when asked), choose what stays verbatim so the
 * request drops to the low-water mark, and fail with `CONTEXT_WINDOW_EXCEEDED` when a request cannot fit and no
 * compaction can make room.
 */
export class CompactionPolicy {
  readonly #agents = new WeakMap<Agent, AgentState>()

  constructor(
    readonly config: CompactionConfig,
    private readonly warn: (message: string) => void,
  ) {}

  /** The last projection made for `agent` (tests compare it with the usage the provider then reported). */
  lastProjection(agent: Agent): ProjectionRecord | undefined {
    return this.#agents.get(agent)?.last
  }

  #state(agent: Agent): AgentState {
    let state = this.#agents.get(agent)
    if (state === undefined) {
      state = { estimator: new TokenEstimator(this.config.charsPerToken) }
      this.#agents.set(agent, state)
    }
    return state
  }

  /** The `agent/compaction` decision for one compaction point: a plan, or `undefined` to send the request as it is. */
  decide(payload: CompactionPayload): CompactionPlan | undefined {
    const { agent, request, manual, previous, turn, step } = payload
    const state = this.#state(agent)
    const window = this.config.contextWindow ?? payload.contextWindow
    const projection = projectInput(agent.session.events, request, state.estimator)
    state.last = { ...projection, turn, step, contextWindow: window }
    if (previous !== undefined) {
      // Right after a compaction step the request goes out as it is — if it fits.
      const why =
        previous.kind === 'failed'
          ? `the summary request failed: ${previous.failure.message}`
          : 'what stays after the last compaction is still too large'
      this.#assertFits(agent, request, projection, window, why)
      return undefined
    }
    if (!manual) {
      if (window === undefined) {
        if (!state.warnedNoWindow) {
          state.warnedNoWindow = true
          this.warn(
            `agent "${agent.id}": no context window is known for ${request.provider}/${request.model}, so automatic ` +
              "compaction is off (set contextWindow in the plugin config or in the route's model catalog)",
          )
        }
        return undefined
      }
      if (projection.tokens <= this.config.threshold * window) return undefined
      if (state.failedTurn === turn) {
        this.#assertFits(agent, request, projection, window, 'a summary request already failed in this turn')
        return undefined
      }
    }
    // A manual compaction runs between turns and summarizes all of them; an automatic one keeps the newest whole
    // turns that fit under the low-water mark beside the system prompt, the tools and the summary's budget.
    const reserved =
      state.estimator.tokens(state.estimator.headerChars(request.system, request.tools)) + this.config.summaryMaxTokens
    const budget = manual || window === undefined ? 0 : Math.floor(this.config.lowWater * window) - reserved
    const count = summarizedCount({
      session: agent.session,
      messages: request.messages,
      turn,
      budget,
      estimator: state.estimator,
    })
    if (count === undefined) {
      if (!manual) this.#assertFits(agent, request, projection, window, 'nothing is left to summarize')
      return undefined
    }
    return {
      count,
      instruction: instructionMessage(this.config.instructions),
      config: this.#summaryConfig(request),
      checkpoint: (summary) => checkpointMessage(summary, count),
      ...(this.config.timeoutMs !== undefined ? { timeoutMs: this.config.timeoutMs } : {}),
    }
  }

  /** Records outcomes: a failed automatic compaction is not retried in the same turn. */
  observe(agent: Agent, outcome: CompactionOutcome): void {
    if (outcome.kind !== 'failed') return
    if (outcome.reason === 'threshold') this.#state(agent).failedTurn = outcome.turn
    this.warn(
      `agent "${agent.id}": the summary request of turn ${outcome.turn} step ${outcome.step} failed ` +
        `(${outcome.failure.code}: ${outcome.failure.message}); the history is unchanged`,
    )
  }

  /** The summary route: the configured one, else the request's own; `maxTokens` defaults to `summaryMaxTokens`. */
  #summaryConfig(request: GenerateOptions): LlmCallConfig {
    const base = this.config.summary ?? callConfigOf(request)
    const config: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(base)) if (value !== undefined) config[key] = value
    if (this.config.summary?.maxTokens === undefined) config.maxTokens = this.config.summaryMaxTokens
    return config as unknown as LlmCallConfig
  }

  #assertFits(
    agent: Agent,
    request: GenerateOptions,
    projection: Projection,
    window: number | undefined,
    why: string,
  ): void {
    if (window === undefined || projection.tokens <= window) return
    throw new LlmError(
      `the next request of agent "${agent.id}" needs about ${projection.tokens} input tokens, more than the ` +
        `${window}-token context window of ${request.provider}/${request.model}, and compaction cannot make room (${why})`,
      'CONTEXT_WINDOW_EXCEEDED',
    )
  }
}
