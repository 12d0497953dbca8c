/**
 * The attribute names the spans carry. The `gen_ai.*`, `error.type` and `http.response.status_code` names are the
 * OpenTelemetry semantic conventions' (the GenAI set is still incubating); they are written out here, as the
 * conventions advise for incubating names, and a test holds each one to `@opentelemetry/semantic-conventions` 1.45.0
 * (`/incubating`), the pinned version. The `bridle.*` names are Bridle's own facts from the session log (see the
 * package README, "Attributes").
 */

export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  requestStopSequences: 'gen_ai.request.stop_sequences',
  responseId: 'gen_ai.response.id',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  responseTimeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  usageReasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  toolDefinitions: 'gen_ai.tool.definitions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
} as const

/** Values of `gen_ai.operation.name`. */
export const OPERATION = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const

/** Stable conventions used beside the GenAI set. */
export const ERROR_TYPE = 'error.type'
export const HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code'
export const SERVICE_NAME = 'service.name'

/** Bridle's facts, named under `bridle.`. */
export const BRIDLE = {
  sessionId: 'bridle.session.id',
  turn: 'bridle.turn',
  step: 'bridle.step',
  attempt: 'bridle.attempt',
  turnEndReason: 'bridle.turn.end_reason',
  turnAbortReason: 'bridle.turn.abort_reason',
  turnSteps: 'bridle.turn.steps',
  turnRequests: 'bridle.turn.requests',
  requestSeq: 'bridle.request.seq',
  requestDigest: 'bridle.request.digest',
  requestPurpose: 'bridle.request.purpose',
  requestHeaderReason: 'bridle.request.header_reason',
  requestSections: 'bridle.request.sections',
  requestReasoningEffort: 'bridle.request.reasoning_effort',
  requestRebuildError: 'bridle.request.rebuild_error',
  compactionReason: 'bridle.compaction.reason',
  compactionMessages: 'bridle.compaction.messages',
  cacheBreak: 'bridle.cache.break',
  cacheBreakReason: 'bridle.cache.break_reason',
  cacheBroken: 'bridle.cache.broken',
  cachePrefixMessages: 'bridle.cache.prefix_messages',
  cachePrefixChars: 'bridle.cache.prefix_chars',
  cacheSectionsChanged: 'bridle.cache.sections_changed',
  cacheTokensSaved: 'bridle.cache.tokens_saved',
  finish: 'bridle.finish',
  failureRequestId: 'bridle.failure.request_id',
  unfinished: 'bridle.unfinished',
} as const
