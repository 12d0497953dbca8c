/**
 * `@bridle/llm/testing`: the skeleton of an adapter's loopback test server (the real wire over a real socket on
 * 127.0.0.1), which each adapter's own `testing` sub-entry dresses in its provider's wire format.
 */
export {
  startLoopbackServer,
  type LoopbackBehaviour,
  type LoopbackServer,
  type LoopbackWire,
  type LoopbackOptions,
} from './testing/loopback-server.js'
export type { RecordedRequest } from './testing/recorded-request.js'
