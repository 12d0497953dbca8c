import type { GenerateOptions, LlmCallConfig, LlmFailure, LlmRetryPolicy, UserMessage } from '@bridle/llm'
import type { Awaitable } from '@bridle/scope'
import type { AgentCancelCause, SessionEvent } from '@bridle/session'

import type { Agent, AgentOptions } from './agent.js'

export type { AgentOptions } from './agent.js'

/** Options of `ctx.agentLoop.create`. */
export interface CreateAgentOptions extends AgentOptions {
  /** Default: the session store mints one. */
  sessionId?: string
  /** Absolute path, stored in the session header (read by the `{{cwd}}` prompt variable). */
  cwd?: string
  /** Start from an existing log; a `session/end-seed` marker follows it. */
  seed?: readonly SessionEvent[]
  /** Agent-local registrations (through `agent.ctx`) made before anyone can see the agent. */
  setup?: (agent: Agent) => void
}

/** Options of `ctx.agentLoop.resume`. */
export interface ResumeAgentOptions extends AgentOptions {
  signal?: AbortSignal
  setup?: (agent: Agent) => void
}

/** Public driver status. */
export type AgentStatus = 'idle' | 'running'

/** Result of the `agent/pre-step` waterfall. */
export type PreStepDecision = { kind: 'reject' } | { kind: 'enter'; messages: UserMessage[] }

/** What one step ended with: `null` means the model is owed a follow-up request (tool results). */
export type StepEnding = 'completed' | 'max-tokens' | null

export interface PreStepPayload {
  messages: readonly UserMessage[]
  turn: number
  step: number
  signal: AbortSignal
  agent: Agent
}
export interface RequestPayload {
  turn: number
  step: number
  signal: AbortSignal
  agent: Agent
}
export interface RequestErrorPayload {
  turn: number
  step: number
  provider: string
  failure: LlmFailure
  retryPolicy: LlmRetryPolicy | undefined
  signal: AbortSignal
  agent: Agent
}
export type RequestErrorDecision = { kind: 'retry' } | undefined

/**
 * What an `agent/compaction` policy decides: replace the first `count` messages of the step's request by a summary.
 * The loop then makes this step a compaction step (one summary request, then one checkpoint that replaces those
 * messages) and sends the conversation request in the next step.
 */
export interface CompactionPlan {
  /** How many of the request's first messages the summary replaces: an integer from 1 to `messages.length`. */
  count: number
  /** The summary request's last message, after those messages: what to write and how. */
  instruction: UserMessage
  /** The summary request's route and sampling; default: the step's own request config. */
  config?: LlmCallConfig
  /** Builds the checkpoint message from the summary text (trimmed, never empty). */
  checkpoint(summary: string): UserMessage
  /** Cancels the summary request after this many milliseconds (the history stays as it was). */
  timeoutMs?: number
}

/** The result of one compaction step, or why a manual compaction did not make one. */
export type CompactionOutcome =
  | {
      kind: 'compacted'
      turn: number
      step: number
      reason: 'threshold' | 'manual'
      /** Seq of the checkpoint `user/message` (the surface replace). */
      checkpointSeq: number
      replacedMessages: number
      /** The summary text the checkpoint was built from. */
      summary: string
    }
  | {
      /** The summary request failed, was cancelled or timed out, or returned no text (`EMPTY_SUMMARY`): history untouched. */
      kind: 'failed'
      turn: number
      step: number
      reason: 'threshold' | 'manual'
      failure: LlmFailure
    }
  | {
      /** Only for `agent.compact()`: no summary request was made. */
      kind: 'skipped'
      reason: string
    }

export interface CompactionPayload {
  turn: number
  step: number
  /** The exact frozen request this step is about to send. */
  request: GenerateOptions
  /** The route's advertised context window (from the prepared call); `undefined` when it advertises none. */
  contextWindow: number | undefined
  /** True when `agent.compact()` asked for this compaction. */
  manual: boolean
  /**
   * The outcome of the compaction step right before this step, in the same turn. The loop never runs two compaction
   * steps in a row: a plan returned while this is set is ignored (with a warning), so a policy uses it to decide
   * whether the request can go out as it is or must fail (for example with `CONTEXT_WINDOW_EXCEEDED`).
   */
  previous: CompactionOutcome | undefined
  signal: AbortSignal
  agent: Agent
}

declare module 'cordis' {
  interface Context {
    /** Set on `agent.ctx` (and contexts derived from it); `undefined` on plain contexts. */
    agent?: Agent
  }
  /**
   * The loop's events. Every `agent/*` dispatch admits the listeners on the agent's scope chain and untagged ones, and
   * its payload ends with `agent` (callers cannot spoof it). Modes: `emit` events are contained (a listener's throw
   * or rejection is warned as `agent event "<name>" listener threw|rejected: …`, the rest still run; emitted by
   * `emitAgentEvent`); a `waterfall`'s listeners get `(payload, next)` and a throw is a turn error (`agentWaterfall`);
   * `serial` listeners are awaited one by one and a throw is a turn error. docs/step-pipeline.md shows where each
   * fires in a step.
   */
  interface Events<C extends Context = Context> {
    /** emit — the driver went `idle` or `running`. */
    'agent/status'(payload: { agent: Agent; status: AgentStatus }): void
    /** emit — a message entered the agent's inbox (either queue). */
    'agent/inbox/inserted'(payload: { agent: Agent; message: UserMessage }): void
    /** emit — a pending message was removed from the inbox without being claimed. */
    'agent/inbox/discarded'(payload: { agent: Agent; message: UserMessage }): void
    /** emit — a message was claimed for `turn` (station S1); it is consumed for good. */
    'agent/inbox/claimed'(payload: { agent: Agent; message: UserMessage; turn: number }): void
    /** emit — a turn failed, or the log could not open or close a turn. */
    'agent/error'(payload: { agent: Agent; turn: number; step: number; error: unknown }): void
    /** emit — the agent's session started: a new one (`startup`) or a resumed log (`resume`). */
    'agent/session-start'(payload: { agent: Agent; source: 'startup' | 'resume' }): void
    /** emit, vetoable — the agent exists; a synchronous listener throw vetoes its creation (a rejection is warned). */
    'agent/created'(payload: { agent: Agent }): void
    /** emit — the agent was disposed. */
    'agent/disposed'(payload: { agent: Agent }): void
    /** waterfall — station S6: enter the claimed messages (maybe rewritten) or reject the step. */
    'agent/pre-step'(payload: PreStepPayload, next: () => Awaitable<PreStepDecision>): Awaitable<PreStepDecision>
    /** waterfall — station S10: the step's route and sampling (`LlmCallConfig`); the fallback is the agent's own. */
    'agent/request'(payload: RequestPayload, next: () => Awaitable<LlmCallConfig>): Awaitable<LlmCallConfig>
    /** waterfall — a model call failed; `{kind: 'retry'}` retries the step's request, `undefined` fails the turn. */
    'agent/request-error'(
      payload: RequestErrorPayload,
      next: () => Awaitable<RequestErrorDecision>,
    ): Awaitable<RequestErrorDecision>
    /**
     * serial — a step ended the turn and nothing is steered in; a listener may still steer a message into
     * `next-step`, which continues the turn. The loop ignores the results.
     */
    'agent/turn-stopping'(payload: { agent: Agent; turn: number; signal: AbortSignal }): Awaitable<unknown>
    /**
     * waterfall — the compaction point: after a step's request is built (header and context logged), before it is
     * verified, digested and sent. The default is `undefined` (send it); a plan makes this step a compaction step.
     */
    'agent/compaction'(
      payload: CompactionPayload,
      next: () => Awaitable<CompactionPlan | undefined>,
    ): Awaitable<CompactionPlan | undefined>
    /** emit — after every compaction step, and for every `agent.compact()` that made none. */
    'agent/compacted'(payload: { agent: Agent; outcome: CompactionOutcome }): void
    /**
     * emit, untagged — a configured agent could not be started or resumed when the loop loaded (also warned). Not an
     * `agent/*` event: there is no agent to scope it to; a listener's throw is swallowed.
     */
    'agent-loop/config-start-failed'(payload: { sessionId: string; error: unknown }): void
  }
}

declare module '@bridle/system-prompt' {
  interface AssembleContext {
    agent?: Agent
  }
}

export type { AgentCancelCause }
