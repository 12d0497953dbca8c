/**
 * Shared pieces of the provability tests: an app booted from the real packages with a
 * scripted adapter on provider `mock`, chunk builders, a seeded PRNG, and tools to edit a stored JSONL log.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { AgentLoop, type Agent } from '@bridle/agent-loop'
import { createUserMessage, LlmRuntime, type GenerateOptions, type UserMessage } from '@bridle/llm'
import { SessionStore, type SessionEvent } from '@bridle/session'
import { sealLog, SessionJsonl } from '@bridle/session-jsonl'
import { AnthropicAdapter, resolveConfig } from '@bridle/llm-anthropic'
import { eventsOfChunks, startMockServer, type MockServer } from '@bridle/llm-anthropic/testing'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import type { Responder } from '../packages/agent-loop/tests/harness.js'

/** The chunk builders are the agent-loop harness's own; re-exported so these tests import one module. */
export type { Responder }
export { say, callTools } from '../packages/agent-loop/tests/harness.js'

/** One plugin load: `ctx.plugin(plugin, config)`. */
export interface PluginLoad {
  readonly name: string
  readonly load: (ctx: Context) => void
}

export interface App {
  readonly ctx: Context
  /** The exact request objects the adapter received, in order. */
  readonly requests: GenerateOptions[]
  /** Responses handed out one per request. */
  readonly script: Responder[]
  /** Names of the plugins in the order they were loaded. */
  readonly loadOrder: readonly string[]
  agent(options?: Parameters<AgentLoop['create']>[0]): Agent
  resume(id: string): Promise<Agent>
}

export const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

/** The core plugins every app here needs, persistence included (one fast write-behind window). */
export function corePlugins(root: string, systemPrompt: Record<string, unknown> = {}): PluginLoad[] {
  return [
    { name: 'sessions', load: (ctx) => ctx.plugin(SessionStore) },
    { name: 'llm', load: (ctx) => ctx.plugin(LlmRuntime) },
    { name: 'system-prompt', load: (ctx) => ctx.plugin(SystemPrompt, systemPrompt) },
    { name: 'tools', load: (ctx) => ctx.plugin(ToolRegistry) },
    { name: 'agent-loop', load: (ctx) => ctx.plugin(AgentLoop, {}) },
    { name: 'session-jsonl', load: (ctx) => ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 }) },
  ]
}

/**
 * How the `mock` route answers: `scripted` hands the script's chunks straight back; `anthropic` sends every request
 * through `@bridle/llm-anthropic` (its serializer, its breakpoint policy, the official SDK) to a loopback Messages
 * server that answers with the script's chunks as Messages SSE events, which the adapter translates back.
 */
export type Backend = 'scripted' | 'anthropic'
export const BACKENDS: readonly Backend[] = ['scripted', 'anthropic']

const servers: MockServer[] = []
/** Closes the loopback servers of the `anthropic` backend (call in `afterAll`). */
export async function closeBackends(): Promise<void> {
  for (const server of servers.splice(0)) await server.close()
}

const KEY_VARIABLE = 'BRIDLE_PROVABILITY_ANTHROPIC_KEY'

/** Loads `plugins` in the given order on a fresh root context and registers the scripted `mock` adapter. */
export async function bootApp(plugins: readonly PluginLoad[], backend: Backend = 'scripted'): Promise<App> {
  const ctx = new Context()
  for (const plugin of plugins) plugin.load(ctx)
  await tick()
  const requests: GenerateOptions[] = []
  const script: Responder[] = []
  const answer = async function* (request: GenerateOptions) {
    const next = script.shift()
    if (!next) throw new Error('script exhausted')
    yield* await next(request)
  }
  if (backend === 'scripted') {
    ctx.llm.registerAdapter(['mock'], {
      async *stream(request: GenerateOptions) {
        requests.push(request)
        yield* answer(request)
      },
    })
  } else {
    const server = await startMockServer()
    servers.push(server)
    process.env[KEY_VARIABLE] = 'sk-ant-provability-0123456789'
    const models = [{ id: 'm1', contextWindow: 200_000, defaultMaxTokens: 1024, minCacheableTokens: 1 }]
    const wire = new AnthropicAdapter(
      resolveConfig({ provider: 'mock', baseURL: server.url, apiKeyEnv: KEY_VARIABLE, maxRetries: 0, models }),
    )
    ctx.llm.registerAdapter(['mock'], {
      resolveModel: (provider: string, model: string) => wire.resolveModel(provider, model),
      planCache: (input) => wire.planCache(input),
      async *stream(request: GenerateOptions) {
        requests.push(request)
        server.push({ kind: 'stream', events: eventsOfChunks(answer(request)) })
        yield* wire.stream(request)
      },
    })
  }
  await tick()
  return {
    ctx,
    requests,
    script,
    loadOrder: plugins.map((p) => p.name),
    agent: (options = {}) => ctx.agentLoop.create({ provider: 'mock', model: 'm1', ...options }),
    resume: (id) => ctx.agentLoop.resume(id, { provider: 'mock', model: 'm1' }),
  }
}

export const user = (text: string): UserMessage => createUserMessage(text)

/**
 * A response that never produces a chunk: it calls `onDispatched` and then waits until the request's signal
 * aborts, then throws the abort reason (what a real adapter does when its HTTP call is cancelled).
 */
export function hangUntilAborted(onDispatched: () => void): Responder {
  return (request) => ({
    async *[Symbol.asyncIterator]() {
      onDispatched()
      const signal = request.signal!
      if (!signal.aborted)
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
      throw signal.reason
    },
  })
}

/** mulberry32: a small deterministic PRNG, so a failing seed can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A Fisher–Yates shuffle driven by `random`. */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** The path session-jsonl uses for a plain id (only `[A-Za-z0-9._-]`, so the segment is the id itself). */
export function sessionFile(root: string, id: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(id)) throw new Error(`test ids must be plain, got "${id}"`)
  return join(root, `${id}.jsonl`)
}

/** The stored file as lines: the header line, then one parsed event per line (with its raw text). */
export async function readLog(
  path: string,
): Promise<{ header: string; lines: { raw: string; event: SessionEvent }[] }> {
  const text = await readFile(path, 'utf8')
  if (!text.endsWith('\n')) throw new Error(`${path}: stored log has a torn tail`)
  const [header, ...rest] = text.slice(0, -1).split('\n')
  return { header: header!, lines: rest.map((raw) => ({ raw, event: JSON.parse(raw) as SessionEvent })) }
}

/**
 * Rewrites the line of the event at `seq` as a deliberate tamperer would: `edit` mutates a parsed copy of the
 * event, the line is written back with `JSON.stringify`, and — unless `reseal` is false — every line checksum is
 * recomputed (`sealLog`), so the file loads and only digest verification can tell. The event's own bytes change
 * only where edited. Throws if the untouched line would not round-trip byte for byte (then the edit would change
 * more than the edited value).
 */
export async function editStoredEvent(
  path: string,
  seq: number,
  edit: (event: any) => void,
  { reseal = true } = {},
): Promise<void> {
  const { header, lines } = await readLog(path)
  const line = lines.find((l) => l.event.seq === seq)
  if (line === undefined) throw new Error(`no stored event at seq ${seq}`)
  if (JSON.stringify(JSON.parse(line.raw)) !== line.raw)
    throw new Error(`stored line of seq ${seq} does not round-trip`)
  const copy = JSON.parse(line.raw)
  edit(copy)
  const raw = JSON.stringify(copy)
  if (raw === line.raw) throw new Error(`edit of seq ${seq} changed nothing`)
  line.raw = raw
  const text = [header, ...lines.map((l) => l.raw)].join('\n') + '\n'
  await writeFile(path, reseal ? sealLog(text) : text)
}

/** Replaces one character of `text` (at `index`, default the middle) with a different letter. */
export function flipChar(text: string, index = Math.floor(text.length / 2)): string {
  const i = Math.min(Math.max(index, 0), text.length - 1)
  const replacement = text[i] === 'x' ? 'y' : 'x'
  return text.slice(0, i) + replacement + text.slice(i + 1)
}

/** The data object that holds a surface event's message (`user/message` data is the message itself). */
export function messageOf(event: { type: string; data: any }): any {
  return event.type === 'user/message' ? event.data : event.data.message
}
