// The public face of @bridle/llm: every name here is in the README's API tables. Modules keep their helpers to
// themselves; a helper another Bridle package needs is listed (and documented) like any other export.

// vocabulary: ids, content, sources, messages, requests, stream chunks
export {
  type Brand,
  type MessageId,
  type CallId,
  type ReasoningEffortId,
  type JsonValue,
  messageId,
  callId,
  reasoningEffortId,
} from './ids.js'
export {
  type ImageAttachmentRef,
  type TextBlock,
  type ReasoningBlock,
  type ToolCallBlock,
  type ImageBlock,
  type ToolResultBlock,
  type ContentBlockMap,
  type ContentBlock,
  type ContentBlockType,
  textOf,
  isBlockType,
  contentHasImage,
} from './content.js'
export {
  CONTEXT_SUMMARY_MAX_CHARS,
  CONTEXT_FORMS,
  type ContextForm,
  type ContextSnapshotSection,
  type ContextFormed,
  type UserSource,
  type PluginSource,
  type ModelSource,
  type AssistantProvenance,
  type ToolSource,
  type MessageSourceMap,
  type MessageSource,
  boundContextSummary,
  assertMessageSource,
} from './source.js'
export {
  type MessageRole,
  type Message,
  type UserMessage,
  type AssistantMessage,
  type ToolResultMessage,
  assertContentBlocks,
  createMessage,
  createUserMessage,
  createAssistantMessage,
  createToolResultMessage,
  freezeMessage,
  isIdentifiedUserMessage,
} from './message.js'
export {
  type SessionId,
  type ToolSchema,
  type LlmPurpose,
  type GenerateOptions,
  type LlmCallConfig,
  type LlmCallConfigAdapterDefaults,
  CALL_CONFIG_KEYS,
  callConfigOf,
  callConfigEquals,
} from './request.js'
export {
  type CacheTtl,
  type CacheBreakpointPosition,
  type CacheBreakpoint,
  type CachePlan,
  type CacheSectionFacts,
  type CachePlanInput,
  isCachePlan,
} from './cache.js'
export {
  type TokenUsage,
  type FinishReasonMap,
  type FinishReason,
  type FinishKind,
  type BlockStartChunk,
  type TextDeltaChunk,
  type ReasoningDeltaChunk,
  type ToolCallDeltaChunk,
  type BlockEndChunk,
  type UsageChunk,
  type FinishChunk,
  type StreamChunk,
  billedInputTokens,
  isTokenDelta,
  streamGrammarViolations,
} from './stream.js'

// errors, config, credentials, secrets
export {
  type LlmFailure,
  type LlmErrorFacts,
  type LlmErrorCode,
  FAILURE_CODE_PATTERN,
  LLM_ERROR_CODES,
  isFailureCode,
  isLlmFailure,
  createLlmFailure,
  HarnessError,
  LlmError,
  errorChain,
  toLlmFailure,
  isContextWindowExceededError,
  isQuotaExceededError,
} from './errors.js'
export {
  type ConfigIssue,
  type ConfigSchemaLike,
  ConfigError,
  configParser,
  formatIssuePath,
  parseConfig,
} from './config.js'
export { intInRange, nullAsAbsent, type NullAsAbsent } from './config-field.js'
export { configuredPlugin } from './configured-plugin.js'
export { isRecord } from './record.js'
export { type NormalizedApiKey, normalizeApiKey, assertUsableApiKey } from './credentials.js'
export {
  REDACTED,
  MIN_SECRET_LENGTH,
  SecretFilter,
  SecretStream,
  knownSecrets,
  holdSecrets,
  holdUrlSecrets,
  isCredentialParameter,
  namedCredentials,
  urlCredentials,
  urlHasCredentials,
  type UrlCredentials,
  redactSecrets,
  clipRedacted,
  redactTruncated,
  redactChunks,
} from './secrets.js'
export { LLM_PACKAGE_VERSION, attributionHeaders } from './attribution.js'

// immutability and JSON limits
export { isWalkable, deepFreeze, isDeepFrozen, markLoopRequest, isLoopRequest } from './freeze.js'
export { extendHistory, extendsHistory, historyBaseOf, historyChainOf } from './history.js'
export {
  MAX_JSON_DEPTH,
  MAX_JSON_BYTES,
  type JsonLimits,
  JSON_LIMITS,
  MESSAGE_ENVELOPE_ROOM,
  MESSAGE_JSON_LIMITS,
  type JsonLimitViolation,
  describeJsonLimitViolation,
  JsonLimitError,
  jsonLimitViolation,
  // the pieces @bridle/session's own walk of event envelopes shares
  jsonPath,
  pathSegment,
  jsonStringBytesBound,
} from './json-limits.js'

// adapters and the runtime (`ctx.llm`)
export {
  type LlmProviderInfo,
  type LlmReasoningEffortInfo,
  type LlmModelInfo,
  type LlmRetryPolicy,
  type LlmAdapter,
  DEFAULT_RETRY_POLICY,
  validateRetryPolicy,
  mergeRetryPolicy,
} from './adapter.js'
export { abortedError, raceAbort } from './model.js'
export {
  ConfigSchema,
  type LlmRuntimeConfig,
  type LlmRuntimeConfigInput,
  Config,
  type AdapterRegistration,
  type PreparedLlmCall,
  LlmRuntime,
} from './runtime.js'
export { BlockAssembler } from './assembler.js'
export {
  DEFAULT_STREAM_TOTAL_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  type StreamTimeoutBound,
  StreamTimeoutError,
  ResponseTooLargeError,
  ResponseMeter,
  startTotalDeadline,
  type BudgetWait,
  ProgressBudget,
} from './call-bounds.js'
