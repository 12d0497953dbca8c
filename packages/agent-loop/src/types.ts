import type { LlmCallConfig, LlmFailure, LlmRetryPolicy, UserMessage } from '@bridle/llm'
import type { AgentCancelCause, SessionEvent } from '@bridle/session'

import type { Agent } from './agent.js'
import type { AgentLoop } from './agent-loop.js'

/** A value or a promise of it. */
export type Awaitable<T> = T | Promise<T>

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
    'agent/pre-step'(
      payload: PreStepPayload,
      next: () => Awaitable<PreStepDecision>,
    ): Awaitable<PreStepDecision>
    'agent/request'(payload: RequestPayload, next: () => Awaitable<LlmCallConfig>): Awaitable<LlmCallConfig>
    'agent/request-error'(
      payload: RequestErrorPayload,
      next: () => Awaitable<RequestErrorDecision>,
    ): Awaitable<RequestErrorDecision>
    'agent/turn-stopping'(payload: { agent: Agent; turn: number; signal: AbortSignal }): Awaitable<unknown>
    'agent-loop/config-start-failed'(payload: { sessionId: string; error: unknown }): void
  }
}

declare module '@bridle/system-prompt' {
  interface AssembleContext {
    agent?: Agent
  }
}

export type { AgentCancelCause }
