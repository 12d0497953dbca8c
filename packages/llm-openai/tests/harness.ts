/**
 * The tests' harness (`routeTestKit` of `@bridle/llm/testing`): one `llm-openai` route named `mock` pointed at the
 * loopback chat-completions server, and `run()`, which drives `ctx.llm.stream` through a `BlockAssembler`.
 */
import './setup.js'
import type { RetryClock } from '@bridle/llm/adapter-kit'
import { routeTestKit, type CallResult, type RouteHarness } from '@bridle/llm/testing'
import { vi } from 'vitest'
import * as llmOpenai from '../src/index.js'
import { OpenAICompatAdapter, resolveConfig } from '../src/index.js'
import { startMockServer, type MockBehaviour, type MockServer } from '../src/testing.js'

export { failureOf } from '@bridle/llm/testing'
export type RunResult = CallResult
export type Harness = RouteHarness<MockServer>

export const TEST_KEY = 'sk-test-0123456789'

const harness = routeTestKit({
  plugin: llmOpenai,
  startServer: (script: MockBehaviour[]) => startMockServer(script),
  route: {
    provider: 'mock',
    apiKeyEnv: 'BRIDLE_TEST_KEY',
    maxRetries: 0,
    models: [{ id: 'mock-chat', contextWindow: 8192, defaultMaxTokens: 256 }],
  },
  model: 'mock-chat',
  key: TEST_KEY,
  env: { set: vi.stubEnv, reset: vi.unstubAllEnvs },
  adapterOf: (raw, clock?: RetryClock) => new OpenAICompatAdapter(resolveConfig(raw), clock),
})

/** `boot(script, overrides)` starts a mock server and mounts the `mock` route; `bootAdapter` registers the adapter. */
export const { boot, bootAdapter, request, run, teardown } = harness
