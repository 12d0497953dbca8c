import type { GenerateOptions, LlmCallConfig, LlmFailure, LlmRetryPolicy, UserMessage } from '@bridle/llm'
import type { Awaitable } from '@bridle/scope'
import type { AgentCancelCause, SessionEvent } from '@bridle/session'

import type { Agent } from './agent.js'
import type { AgentLoop } from './agent-loop.js'

/** Per-instance model route and budget. Not persisted: a resumed agent uses what `resume` is given. */
export interface AgentOptions {
  provider?: string
  model?: string
  maxTokens?: number
}

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
    agentLoop: AgentLoop
    /** Set on `agent.ctx` (and contexts derived from it); `undefined` on plain contexts. */
    agent?: Agent
  }
  interface Events<C extends Context = Context> {
    'agent/status'(payload: { agent: Agent; status: AgentStatus }): void
    'agent/inbox/inserted'(payload: { agent: Agent; message: UserMessage }): void
    'agent/inbox/discarded'(payload: { agent: Agent; message: UserMessage }): void
    'agent/inbox/claimed'(payload: { agent: Agent; message: UserMessage; turn: number }): void
    'agent/error'(payload: { agent: Agent; turn: number; step: number; error: unknown }): void
    'agent/session-start'(payload: { agent: Agent; source: 'startup' | 'resume' }): void
    'agent/created'(payload: { agent: Agent }): void
    'agent/disposed'(payload: { agent: Agent }): void
    'agent/pre-step'(payload: PreStepPayload, next: () => Awaitable<PreStepDecision>): Awaitable<PreStepDecision>
    'agent/request'(payload: RequestPayload, next: () => Awaitable<LlmCallConfig>): Awaitable<LlmCallConfig>
    'agent/request-error'(
      payload: RequestErrorPayload,
      next: () => Awaitable<RequestErrorDecision>,
    ): Awaitable<RequestErrorDecision>
    'agent/turn-stopping'(payload: { agent: Agent; turn: number; signal: AbortSignal }): Awaitable<unknown>
    /**
     * Waterfall at the compaction point: after a step's request is built (header and context logged), before it is
     * verified, digested and sent. The default is `undefined` (send it); a plan makes this step a compaction step.
     */
    'agent/compaction'(
      payload: CompactionPayload,
      next: () => Awaitable<CompactionPlan | undefined>,
    ): Awaitable<CompactionPlan | undefined>
    /** After every compaction step, and for every `agent.compact()` that made none. */
    'agent/compacted'(payload: { agent: Agent; outcome: CompactionOutcome }): void
    'agent-loop/config-start-failed'(payload: { sessionId: string; error: unknown }): void
  }
}

declare module '@bridle/system-prompt' {
  interface AssembleContext {
    agent?: Agent
  }
}

export type { AgentCancelCause }
