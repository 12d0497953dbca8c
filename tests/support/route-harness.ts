/**
 * The harness of the adapter packages' tests: a cordis `Context` with `LlmRuntime` and one route pointed at the
 * adapter's loopback server, the key of the route in its environment variable, and `runCall()`, which drives
 * `ctx.llm.stream` through a `BlockAssembler` and checks the chunk grammar. Each adapter's `tests/harness.ts` names
 * its plugin, its mock route and its key.
 */
import {
  BlockAssembler,
  LlmRuntime,
  streamGrammarViolations,
  type FinishReason,
  type GenerateOptions,
  type LlmAdapter,
  type StreamChunk,
  type TokenUsage,
} from '@bridle/llm'
import { Context } from 'cordis'
import { expect, vi } from 'vitest'

/** What the harness needs of a loopback server. */
export interface ScriptedServer {
  url: string
  remaining(): number
  readonly unexpected: number
  close(): Promise<void>
}

export interface RouteHarness<S extends ScriptedServer> {
  ctx: Context
  server: S
}

/** The route's key: the variable it is read from and its value. */
export interface RouteKey {
  env: string
  value: string
}

/** Mounts `plugin` with `config`, its `baseURL` the server's, under the route name `provider`; the key is set first. */
export function mountRoute<S extends ScriptedServer>(
  server: S,
  plugin: object,
  config: Record<string, unknown>,
  key: RouteKey,
): RouteHarness<S> {
  vi.stubEnv(key.env, key.value)
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  ctx.plugin(plugin as never, { baseURL: server.url, ...config } as never)
  expect(ctx.llm.hasProvider(config.provider as string)).toBe(true)
  return { ctx, server }
}

/** Registers `adapter` directly under `provider`, so the test owns it (and, say, its retry clock). */
export function mountAdapter<S extends ScriptedServer, A extends LlmAdapter>(
  server: S,
  provider: string,
  adapter: A,
  key: RouteKey,
): RouteHarness<S> & { adapter: A } {
  vi.stubEnv(key.env, key.value)
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  ctx.llm.registerAdapter([provider], adapter)
  return { ctx, server, adapter }
}

export interface RunResult {
  chunks: StreamChunk[]
  message: ReturnType<BlockAssembler['message']>
  usage: TokenUsage | undefined
  finish: FinishReason
}

/** Drives one call to the end; asserts the chunk grammar holds. */
export async function runCall(ctx: Context, options: GenerateOptions): Promise<RunResult> {
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

/** Closes the server after asserting (unless `strict: false`) that the script was consumed exactly. */
export async function teardownRoute(
  h: RouteHarness<ScriptedServer> | undefined,
  { strict = true } = {},
): Promise<void> {
  vi.unstubAllEnvs()
  if (h === undefined) return
  await h.server.close()
  if (strict) {
    expect(h.server.remaining()).toBe(0)
    expect(h.server.unexpected).toBe(0)
  }
}
