// @bridle/llm-anthropic — Anthropic Messages streaming adapter with prompt-cache breakpoints placed by policy
// (docs/model-calls.md, docs/caching.md).
export { name, inject, reusable, Config, apply } from './plugin.js'
export {
  ConfigSchema,
  ModelEntrySchema,
  resolveConfig,
  effortsOf,
  ANTHROPIC_BASE_URL,
  ANTHROPIC_MODELS,
  FALLBACK_MAX_TOKENS,
  FALLBACK_MIN_CACHEABLE_TOKENS,
  RESERVED_BODY_KEYS,
  FORBIDDEN_HEADERS,
  type ModelEntry,
  type AnthropicConfig,
  type AnthropicConfigInput,
} from './config.js'
export { AnthropicAdapter } from './adapter.js'
export { buildRequestBody, serializeMessages, systemBlocks, type WireBlock, type WireMessage } from './serialize.js'
export { MessagesTranslator, type PushResult } from './translate.js'
export { REPLAY_FORMAT, replayedBlocks, type AnthropicReplayState, type ReplayEntry } from './replay.js'
export { translateUsage } from './usage.js'
export { errorCode, httpError, streamErrorEvent, requestedWaitMs } from './failures.js'
export { placeBreakpoints, MAX_BREAKPOINTS, LOOKBACK_BLOCKS, type PolicyOptions } from './cache/policy.js'
export { prefixLayout, estimateTokens, CHARS_PER_TOKEN, type PrefixLayout } from './cache/layout.js'
