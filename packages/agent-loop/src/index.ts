export { AgentLoop } from './service/agent-loop.js'
export { AgentLoop as default } from './service/agent-loop.js'
export { Agent } from './service/agent.js'
export { DEFAULT_MAX_STEPS } from './vocabulary/agent.js'
export {
  Config,
  ConfigSchema,
  ConfiguredAgentSchema,
  DEFAULT_MAX_PARALLEL_TOOL_CALLS,
  type AgentLoopConfig,
  type AgentLoopConfigInput,
  type ConfiguredAgent,
  type ResolvedAgentLoopConfig,
} from './vocabulary/config.js'
export { RUNTIME_CONTEXT_CLEARED, SNAPSHOT_PLUGIN, RuntimeContextProjection } from './stations/runtime-context.js'
export { verifyRequest } from './stations/verify-request.js'
export { failureOf } from './turn/turn.js'
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
} from './vocabulary/types.js'
