// `@bridle/llm-openai/testing`: the loopback mock server and canned wire payloads the tests use.
export {
  startMockServer,
  encodeSseItem,
  type MockServer,
  type MockServerOptions,
  type MockBehaviour,
  type RecordedRequest,
  type SseItem,
} from './testing/mock-server.js'
export {
  DONE,
  KEEPALIVE,
  chunk,
  usageOnlyChunk,
  textEvents,
  reasoningEvents,
  toolCallEvents,
  type CannedToolCall,
  type FinishOptions,
  type WireUsage,
} from './testing/canned.js'
