/**
 * The tests' harness (`@bridle/llm/testing`): one `llm-anthropic` route named `mock` pointed at the loopback
 * Messages server, and `run()`, which drives `ctx.llm.stream` through a `BlockAssembler` and checks the chunk grammar.
 */
import './setup.js'
import { createUserMessage, type GenerateOptions } from '@bridle/llm'
import type { RetryClock } from '@bridle/llm/adapter-kit'
import type { Context } from 'cordis'
import { vi } from 'vitest'
import {
  closeRoute,
  failureOf,
  mountAdapter,
  mountRoute,
  runCall,
  type CallResult,
  type RouteHarness,
} from '@bridle/llm/testing'
import * as llmAnthropic from '../src/index.js'
import { AnthropicAdapter, resolveConfig } from '../src/index.js'
import { startMockServer, type MockBehaviour, type MockServer } from '../src/testing.js'

export { failureOf }
export type RunResult = CallResult

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

export type Harness = RouteHarness<MockServer>

/** Starts a mock server with `script` and mounts the `mock` route; `overrides` patch the plugin config. */
export async function boot(script: MockBehaviour[] = [], overrides: Record<string, unknown> = {}): Promise<Harness> {
  vi.stubEnv(MOCK_ROUTE.apiKeyEnv, TEST_KEY)
  return mountRoute(await startMockServer(script), llmAnthropic, { ...MOCK_ROUTE, ...overrides })
}

/** Like `boot`, but registers the adapter directly so the test owns it and its retry clock. */
export async function bootAdapter(
  script: MockBehaviour[],
  overrides: Record<string, unknown>,
  clock?: RetryClock,
): Promise<Harness & { adapter: AnthropicAdapter }> {
  vi.stubEnv(MOCK_ROUTE.apiKeyEnv, TEST_KEY)
  const server = await startMockServer(script)
  const config = resolveConfig({ ...MOCK_ROUTE, baseURL: server.url, ...overrides })
  return mountAdapter(server, 'mock', new AnthropicAdapter(config, clock))
}

/** The default request: route `mock`, model `mock-claude`, one user message. */
export function request(partial: Partial<GenerateOptions> = {}): GenerateOptions {
  return { provider: 'mock', model: 'mock-claude', messages: [createUserMessage('hi')], ...partial }
}

/** Drives one call to the end; asserts the chunk grammar holds. */
export function run(ctx: Context, partial: Partial<GenerateOptions> = {}): Promise<RunResult> {
  return runCall(ctx, request(partial))
}

/** The JSON body of the `i`-th recorded request. */
export function bodyOf(server: MockServer, i = 0): Record<string, unknown> {
  return server.requests[i]!.body as Record<string, unknown>
}

/** Closes the server after asserting the script was consumed exactly; the environment is restored. */
export async function teardown(h: Harness | undefined, options: { strict?: boolean } = {}): Promise<void> {
  vi.unstubAllEnvs()
  await closeRoute(h, options)
}
