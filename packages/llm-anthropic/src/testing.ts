// `@bridle/llm-anthropic/testing`: the loopback Messages API server and canned streams the tests use.
export {
  startMockServer,
  encodeSseItem,
  type MockServer,
  type MockBehaviour,
  type RecordedRequest,
  type MessagesSseItem,
} from './testing/mock-server.js'
export {
  PING,
  messageStart,
  blockEvents,
  answerEvents,
  textAnswer,
  toolUseAnswer,
  errorEvent,
  errorBody,
  type WireUsage,
  type CannedBlock,
  type AnswerOptions,
} from './testing/canned.js'
export {
  CacheSimulator,
  PRICE,
  simRequest,
  blocksOfBody,
  type SimBlock,
  type SimRequest,
  type SimBreakpoint,
  type SimBill,
  type SimulatorOptions,
  type CacheState,
} from './cache/simulator.js'
export { eventsOfChunks } from './testing/chunk-events.js'
