/**
 * The tests' harness (`@bridle/llm/testing`): one `llm-openai` route named `mock` pointed at the loopback
 * chat-completions server, and `run()`, which drives `ctx.llm.stream` through a `BlockAssembler`.
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
import * as llmOpenai from '../src/index.js'
import { OpenAICompatAdapter, resolveConfig } from '../src/index.js'
import { startMockServer, type MockBehaviour, type MockServer } from '../src/testing.js'

export { failureOf }
export type RunResult = CallResult

export const TEST_KEY = 'sk-test-0123456789'

const MOCK_ROUTE = {
  provider: 'mock',
  apiKeyEnv: 'BRIDLE_TEST_KEY',
  maxRetries: 0,
  models: [{ id: 'mock-chat', contextWindow: 8192, defaultMaxTokens: 256 }],
}

export type Harness = RouteHarness<MockServer>

/** Starts a mock server with `script` and mounts the `mock` route; `overrides` patch the plugin config. */
export async function boot(
  script: MockBehaviour[] = [],
  overrides: Record<string, unknown> | ((url: string) => Record<string, unknown>) = {},
): Promise<Harness> {
  vi.stubEnv(MOCK_ROUTE.apiKeyEnv, TEST_KEY)
  const server = await startMockServer(script)
  const patch = typeof overrides === 'function' ? overrides(server.url) : overrides
  return mountRoute(server, llmOpenai, { ...MOCK_ROUTE, ...patch })
}

/** Like `boot`, but registers the adapter directly so the test owns it and its retry clock. */
export async function bootAdapter(
  script: MockBehaviour[],
  overrides: Record<string, unknown>,
  clock: RetryClock,
): Promise<Harness & { adapter: OpenAICompatAdapter }> {
  vi.stubEnv(MOCK_ROUTE.apiKeyEnv, TEST_KEY)
  const server = await startMockServer(script)
  const config = resolveConfig({ ...MOCK_ROUTE, baseURL: server.url, ...overrides })
  return mountAdapter(server, 'mock', new OpenAICompatAdapter(config, clock))
}

/** The default request: route `mock`, model `mock-chat`, one user message. */
export function request(partial: Partial<GenerateOptions> = {}): GenerateOptions {
  return { provider: 'mock', model: 'mock-chat', messages: [createUserMessage('hi')], ...partial }
}

/** Drives one call to the end; asserts the chunk grammar holds. */
export function run(ctx: Context, partial: Partial<GenerateOptions> = {}): Promise<RunResult> {
  return runCall(ctx, request(partial))
}

/** Closes the server after asserting the script was consumed exactly; the environment is restored. */
export async function teardown(h: Harness | undefined, options: { strict?: boolean } = {}): Promise<void> {
  vi.unstubAllEnvs()
  await closeRoute(h, options)
}
