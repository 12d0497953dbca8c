/**
 * The harness of an adapter's tests: a cordis `Context` with `LlmRuntime` and one route pointed at the adapter's
 * loopback server, `runCall()`, which drives `ctx.llm.stream` to its end through a `BlockAssembler` and checks the
 * chunk grammar, and `closeRoute()`, which checks that the server's script was consumed exactly. Failures throw, so
 * any test runner reports them.
 */
import { Context } from 'cordis'
import type { LlmAdapter } from '../adapter.js'
import { BlockAssembler } from '../assembler.js'
import type { GenerateOptions } from '../request.js'
import { LlmRuntime } from '../runtime.js'
import { streamGrammarViolations, type FinishReason, type StreamChunk, type TokenUsage } from '../stream.js'
import type { LlmFailure } from '../errors.js'

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

/**
 * Mounts `LlmRuntime` and `plugin` with `config` (its `baseURL` the server's unless `config` names one) in a new
 * context; throws unless the route `config.provider` is then registered.
 */
export function mountRoute<S extends ScriptedServer>(
  server: S,
  plugin: object,
  config: Record<string, unknown>,
): RouteHarness<S> {
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  ctx.plugin(plugin as never, { baseURL: server.url, ...config } as never)
  if (!ctx.llm.hasProvider(String(config.provider))) throw new Error(`route "${config.provider}" was not registered`)
  return { ctx, server }
}

/** Registers `adapter` directly as the route `provider`, so the test owns it (its retry clock, its `dispose()`). */
export function mountAdapter<S extends ScriptedServer, A extends LlmAdapter>(
  server: S,
  provider: string,
  adapter: A,
): RouteHarness<S> & { adapter: A } {
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  ctx.llm.registerAdapter([provider], adapter)
  return { ctx, server, adapter }
}

/** One call, driven to its end. */
export interface CallResult {
  chunks: StreamChunk[]
  message: ReturnType<BlockAssembler['message']>
  usage: TokenUsage | undefined
  finish: FinishReason
}

/** Drives `ctx.llm.stream(options)` to its end; throws when the chunks break the stream grammar. */
export async function runCall(ctx: Context, options: GenerateOptions): Promise<CallResult> {
  const assembler = new BlockAssembler()
  const chunks: StreamChunk[] = []
  for await (const chunk of ctx.llm.stream(options)) {
    chunks.push(chunk)
    assembler.push(chunk)
  }
  const violations = streamGrammarViolations(chunks)
  if (violations.length > 0) throw new Error(`the chunks break the stream grammar: ${violations.join('; ')}`)
  return {
    chunks,
    message: assembler.message({ provider: options.provider, model: options.model }),
    usage: assembler.usage,
    finish: assembler.finish,
  }
}

/** The failure of an `error` or `aborted` finish; throws for any other. */
export function failureOf(finish: FinishReason): LlmFailure {
  if (finish.kind !== 'error' && finish.kind !== 'aborted')
    throw new Error(`expected a failed finish, got ${finish.kind}`)
  return finish.failure
}

/** Closes the server; unless `strict: false`, throws when its script was not consumed exactly. */
export async function closeRoute(h: RouteHarness<ScriptedServer> | undefined, { strict = true } = {}): Promise<void> {
  if (h === undefined) return
  await h.server.close()
  if (!strict) return
  const left = h.server.remaining()
  const unexpected = h.server.unexpected
  if (left !== 0 || unexpected !== 0) {
    throw new Error(`mock script: ${left} behaviour(s) left unused, ${unexpected} request(s) beyond it`)
  }
}
