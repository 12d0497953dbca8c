/**
 * The tests' harness (`routeTestKit` of `@bridle/llm/testing`): one `llm-anthropic` route named `mock` pointed at the
 * loopback Messages server, and `run()`, which drives `ctx.llm.stream` through a `BlockAssembler` and checks the
 * chunk grammar.
 */
import './setup.js'
import type { RetryClock } from '@bridle/llm/adapter-kit'
import { routeTestKit, type CallResult, type RouteHarness } from '@bridle/llm/testing'
import { vi } from 'vitest'
import * as llmAnthropic from '../src/index.js'
import { AnthropicAdapter, resolveConfig } from '../src/index.js'
import { startMockServer, type MockBehaviour, type MockServer } from '../src/testing.js'

export { failureOf } from '@bridle/llm/testing'
export type RunResult = CallResult
export type Harness = RouteHarness<MockServer>

export const TEST_KEY = 'sk-ant-test-0123456789abcdef'

export const MOCK_ROUTE = {
  provider: 'mock',
  apiKeyEnv: 'BRIDLE_TEST_ANTHROPIC_KEY',
  maxRetries: 0,
  models: [
    {
      id: 'mock-claude',
      contextWindow: 200_000,
      defaultMaxTokens: 256,
      minCacheableTokens: 16,
      thinking: { mode: 'budget' as const, budgets: { low: 1024, high: 4096 } },
    },
    { id: 'mock-adaptive', contextWindow: 200_000, thinking: { mode: 'adaptive' as const, efforts: ['low', 'max'] } },
  ],
}

const harness = routeTestKit({
  plugin: llmAnthropic,
  startServer: (script: MockBehaviour[]) => startMockServer(script),
  route: MOCK_ROUTE,
  model: 'mock-claude',
  key: TEST_KEY,
  env: { set: vi.stubEnv, reset: vi.unstubAllEnvs },
  adapterOf: (raw, clock?: RetryClock) => new AnthropicAdapter(resolveConfig(raw), clock),
})

/** `boot(script, overrides)` starts a mock server and mounts the `mock` route; `bootAdapter` registers the adapter. */
export const { boot, bootAdapter, request, run, teardown } = harness

/** The JSON body of the `i`-th recorded request. */
export function bodyOf(server: MockServer, i = 0): Record<string, unknown> {
  return server.requests[i]!.body as Record<string, unknown>
}
