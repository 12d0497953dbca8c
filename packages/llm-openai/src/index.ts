// @bridle/llm-openai — OpenAI-compatible chat-completions streaming adapter (docs/model-calls.md).
export { name, inject, reusable, Config, apply } from './plugin.js'
export {
  ConfigSchema,
  ModelEntrySchema,
  resolveConfig,
  DEEPSEEK_BASE_URL,
  DEEPSEEK_MODELS,
  RESERVED_BODY_KEYS,
  FORBIDDEN_HEADERS,
  type ModelEntry,
  type OpenAICompatConfig,
  type OpenAICompatConfigInput,
} from './config.js'
export { OpenAICompatAdapter } from './adapter.js'
export { buildRequestBody, serializeMessages, type WireMessage, type WireToolCall, type WireTool } from './serialize.js'
export { DeltaTranslator } from './translate.js'
export { translateUsage } from './usage.js'
export { httpErrorCode } from './http-errors.js'
export { retryAfterMs } from '@bridle/llm/adapter-kit'
