/**
 * The tests' harness: a cordis `Context` with `LlmRuntime` and one `llm-anthropic` route named `mock` pointed at the
 * loopback Messages server, and `run()`, which drives `ctx.llm.stream` through a `BlockAssembler` and checks the
 * chunk grammar.
 */
import './setup.js'
import {
  BlockAssembler,
  LlmRuntime,
  createUserMessage,
  streamGrammarViolations,
  type FinishReason,
  type GenerateOptions,
  type StreamChunk,
  type TokenUsage,
} from '@bridle/llm'
import { Context } from 'cordis'
import { expect, vi } from 'vitest'
import * as llmAnthropic from '../src/index.js'
import { AnthropicAdapter, resolveConfig } from '../src/index.js'
import type { RetryClock } from '../src/retries.js'
import { startMockServer, type MockBehaviour, type MockServer } from '../src/testing.js'

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

export interface Harness {
  ctx: Context
  server: MockServer
}

/** Starts a mock server with `script` and mounts the `mock` route; `overrides` patch the plugin config. */
export async function boot(script: MockBehaviour[] = [], overrides: Record<string, unknown> = {}): Promise<Harness> {
  vi.stubEnv('BRIDLE_TEST_ANTHROPIC_KEY', TEST_KEY)
  const server = await startMockServer(script)
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  ctx.plugin(llmAnthropic, { ...MOCK_ROUTE, baseURL: server.url, ...overrides })
  expect(ctx.llm.hasProvider('mock')).toBe(true)
  return { ctx, server }
}

/** Like `boot`, but registers the adapter directly so the test owns it and its retry clock. */
export async function bootAdapter(
  script: MockBehaviour[],
  overrides: Record<string, unknown>,
  clock?: RetryClock,
): Promise<Harness & { adapter: AnthropicAdapter }> {
  vi.stubEnv('BRIDLE_TEST_ANTHROPIC_KEY', TEST_KEY)
  const server = await startMockServer(script)
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  const adapter = new AnthropicAdapter(resolveConfig({ ...MOCK_ROUTE, baseURL: server.url, ...overrides }), clock)
  ctx.llm.registerAdapter(['mock'], adapter)
  return { ctx, server, adapter }
}

/** The default request: route `mock`, model `mock-claude`, one user message. */
export function request(partial: Partial<GenerateOptions> = {}): GenerateOptions {
  return { provider: 'mock', model: 'mock-claude', messages: [createUserMessage('hi')], ...partial }
}

export interface RunResult {
  chunks: StreamChunk[]
  message: ReturnType<BlockAssembler['message']>
  usage: TokenUsage | undefined
  finish: FinishReason
}

/** Drives one call to the end; asserts the chunk grammar holds. */
export async function run(ctx: Context, partial: Partial<GenerateOptions> = {}): Promise<RunResult> {
  const options = request(partial)
  const assembler = new BlockAssembler()
  const chunks: StreamChunk[] = []
  for await (const chunk of ctx.llm.stream(options)) {
    chunks.push(chunk)
    assembler.push(chunk)
  }
  expect(streamGrammarViolations(chunks)).toEqual([])
  return {
    chunks,
    message: assembler.message({ provider: options.provider, model: options.model }),
    usage: assembler.usage,
    finish: assembler.finish,
  }
}

/** The failure of an `error` or `aborted` finish; fails the test otherwise. */
export function failureOf(finish: FinishReason) {
  if (finish.kind !== 'error' && finish.kind !== 'aborted')
    throw new Error(`expected a failed finish, got ${finish.kind}`)
  return finish.failure
}

/** The JSON body of the `i`-th recorded request. */
export function bodyOf(server: MockServer, i = 0): Record<string, unknown> {
  return server.requests[i]!.body as Record<string, unknown>
}

/** Closes the server after asserting the script was consumed exactly. */
export async function teardown(h: Harness | undefined, { strict = true } = {}): Promise<void> {
  vi.unstubAllEnvs()
  if (h === undefined) return
  await h.server.close()
  if (strict) {
    expect(h.server.remaining()).toBe(0)
    expect(h.server.unexpected).toBe(0)
  }
}
