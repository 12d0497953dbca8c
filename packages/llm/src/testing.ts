/**
 * `@bridle/llm/testing`: what an adapter's tests share — the skeleton of its loopback test server (the real wire over
 * a real socket on 127.0.0.1), which each adapter's own `testing` sub-entry dresses in its provider's wire format, and
 * the harness that mounts a route against it and drives calls to their end.
 */
export {
  startLoopbackServer,
  type LoopbackBehaviour,
  type LoopbackServer,
  type LoopbackWire,
  type LoopbackOptions,
} from './testing/loopback-server.js'
export type { RecordedRequest } from './testing/recorded-request.js'
export {
  mountRoute,
  mountAdapter,
  runCall,
  failureOf,
  closeRoute,
  type ScriptedServer,
  type RouteHarness,
  type CallResult,
} from './testing/route-harness.js'
export {
  routeTestKit,
  type RouteTestKit,
  type RouteTestSpec,
  type RouteOverrides,
} from './testing/route-test-kit.js'
