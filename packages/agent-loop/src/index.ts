export { AgentLoop } from './agent-loop.js'
export { AgentLoop as default } from './agent-loop.js'
export { Agent } from './agent.js'
export {
  Config,
  ConfigSchema,
  ConfiguredAgentSchema,
  DEFAULT_MAX_PARALLEL_TOOL_CALLS,
  type AgentLoopConfig,
  type ConfiguredAgent,
  type ResolvedAgentLoopConfig,
} from './config.js'
export { RUNTIME_CONTEXT_CLEARED, SNAPSHOT_PLUGIN, RuntimeContextProjection } from './runtime-context.js'
export { verifyRequest } from './verify-request.js'
export { failureOf } from './turn.js'
export type {
  AgentCancelCause,
  AgentOptions,
  AgentStatus,
  CompactionOutcome,
  CompactionPayload,
  CompactionPlan,
  CreateAgentOptions,
  PreStepDecision,
  PreStepPayload,
  RequestErrorDecision,
  RequestErrorPayload,
  RequestPayload,
  ResumeAgentOptions,
  StepEnding,
} from './types.js'
