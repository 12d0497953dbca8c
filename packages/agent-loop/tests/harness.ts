import { Context } from 'cordis'
import { AgentLoop, type Agent, type AgentLoopConfig } from '@bridle/agent-loop'
import { createUserMessage, LlmRuntime, type GenerateOptions, type StreamChunk, type UserMessage } from '@bridle/llm'
import { SessionStore, type SessionEvent } from '@bridle/session'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'

/** Produces one scripted response for a request. */
export type Responder = (request: GenerateOptions) => StreamChunk[] | AsyncIterable<StreamChunk>

export interface Harness {
  ctx: Context
  /** Requests the mock adapter received, in order (the exact objects). */
  requests: GenerateOptions[]
  /** Responses the mock adapter hands out, one per request. */
  script: Responder[]
  /** Compact `S:` / `L:` trace of session events and agent notifications, in order. */
  trace: string[]
  agent(options?: Parameters<AgentLoop['create']>[0]): Agent
}

function textOfMessage(m: { content: readonly { type: string; text?: string }[] }): string {
  return m.content.map((b) => (b.type === 'text' ? b.text : `<${b.type}>`)).join('|')
}

function short(text: string): string {
  if (text.startsWith('Current runtime context.')) return '[snapshot] ' + text.slice(text.indexOf('\n\n') + 2)
  if (text.startsWith('Current runtime context: none.')) return '[cleared]'
  return text
}

/** One compact line per session event, stable enough to assert exact orders on. */
export function describeEvent(e: SessionEvent): string {
  const d = e.data as Record<string, any>
  switch (e.type) {
    case 'turn/start':
      return `S:turn/start ${d.turn}`
    case 'turn/end': {
      const r = d.reason
      const extra = r.kind === 'aborted' ? `:${r.reason?.kind}` : r.kind === 'error' ? `:${r.error.code}` : ''
      return `S:turn/end ${d.turn} ${r.kind}${extra}`
    }
    case 'step/start':
    case 'step/end':
      return `S:${e.type} ${d.turn}.${d.step}`
    case 'user/message':
      return `S:user/message ${short(textOfMessage(d as never))}`
    case 'assistant/chunk':
      return `S:chunk ${d.chunk.type}`
    case 'assistant/message':
      return `S:assistant/message ${d.turn}.${d.step}`
    case 'tool/call':
      return `S:tool/call ${d.callId}`
    case 'tool/result':
      return `S:tool/result ${d.message.source.callId}${d.error ? ` ${d.error.code}` : ''}`
    case 'request/header':
      return `S:request/header ${d.reason}`
    case 'request/context':
      return 'S:request/context'
    case 'request/digest':
      return `S:request/digest ${d.turn}.${d.step}#${d.attempt}`
    case 'agent/inbox/spliced': {
      const parts = [`S:spliced ${d.target} @${d.start}`]
      if (d.removedCount) parts.push(`-${d.removedCount}`)
      if (d.inserted.length) parts.push(`+[${d.inserted.map((m: UserMessage) => short(textOfMessage(m))).join(',')}]`)
      if (d.outcome) parts.push(d.outcome)
      return parts.join(' ')
    }
    case 'session/end-seed':
      return 'S:end-seed'
    default:
      return `S:${e.type}`
  }
}

/** Chunks of a plain text answer; `cacheReadTokens` adds a provider-reported cache hit to its usage. */
export function say(text: string, cacheReadTokens?: number): Responder {
  return () => [
    { type: 'block-start', index: 0, blockType: 'text' },
    { type: 'text-delta', index: 0, text },
    { type: 'block-end', index: 0, block: { type: 'text', text } },
    {
      type: 'usage',
      usage: { inputTokens: 10, outputTokens: 3, ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }) },
    },
    { type: 'finish', reason: { kind: 'stop' } },
  ]
}

/** Chunks of an answer that calls the given tools (in order). */
export function callTools(...calls: { id: string; name: string; args?: string }[]): Responder {
  return () => {
    const chunks: StreamChunk[] = []
    calls.forEach((c, index) => {
      const args = c.args ?? '{}'
      chunks.push({ type: 'block-start', index, blockType: 'tool-call' })
      chunks.push({ type: 'tool-call-delta', index, id: c.id as never, name: c.name, argumentsDelta: args })
      chunks.push({
        type: 'block-end',
        index,
        block: { type: 'tool-call', id: c.id as never, name: c.name, arguments: args },
      })
    })
    chunks.push({ type: 'finish', reason: { kind: 'tool-calls' } })
    return chunks
  }
}

/** A stream that ends with an error finish. */
export function fail(code: string, message = 'boom', extra: Record<string, unknown> = {}): Responder {
  return () => [{ type: 'finish', reason: { kind: 'error', failure: { message, code, ...extra } } } as StreamChunk]
}

export const user = (text: string): UserMessage => createUserMessage(text)

const AGENT_EVENTS = [
  'agent/status',
  'agent/inbox/inserted',
  'agent/inbox/discarded',
  'agent/inbox/claimed',
  'agent/error',
  'agent/created',
  'agent/session-start',
  'agent/disposed',
] as const

function describeAgentEvent(name: string, p: Record<string, any>): string {
  const short = name.replace('agent/inbox/', '').replace('agent/', '')
  switch (name) {
    case 'agent/status':
      return `L:status ${p.status}`
    case 'agent/inbox/claimed':
      return `L:claimed ${shortText(p.message)} ${p.turn}`
    case 'agent/inbox/inserted':
    case 'agent/inbox/discarded':
      return `L:${short} ${shortText(p.message)}`
    case 'agent/error':
      return `L:error ${p.turn}.${p.step}`
    case 'agent/session-start':
      return `L:session-start ${p.source}`
    default:
      return `L:${short}`
  }
}

function shortText(m: UserMessage): string {
  return short(textOfMessage(m))
}

/**
 * Boots sessions, llm, system prompt, tools and the agent loop on a fresh root context, with a scripted
 * adapter on provider `mock` and a trace of everything that happens.
 */
export function boot(options: { systemPrompt?: Record<string, unknown>; loop?: AgentLoopConfig } = {}): Harness {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(LlmRuntime)
  ctx.plugin(SystemPrompt, options.systemPrompt ?? {})
  ctx.plugin(ToolRegistry)
  ctx.plugin(AgentLoop, options.loop ?? {})
  const requests: GenerateOptions[] = []
  const script: Responder[] = []
  ctx.llm.registerAdapter(['mock'], {
    async *stream(request: GenerateOptions) {
      requests.push(request)
      const next = script.shift()
      if (!next) throw new Error('script exhausted')
      yield* await next(request)
    },
  })
  const trace: string[] = []
  ctx.on('session/event', (_session, event) => {
    trace.push(describeEvent(event))
  })
  for (const name of AGENT_EVENTS) {
    ctx.on(name as 'agent/status', (payload: never) => {
      trace.push(describeAgentEvent(name, payload))
    })
  }
  return {
    ctx,
    requests,
    script,
    trace,
    agent: (o = {}) => ctx.agentLoop.create({ provider: 'mock', model: 'm1', ...o }),
  }
}

/** Resolves after pending microtasks and a macrotask. */
export const tick = () => new Promise<void>((r) => setTimeout(r, 0))

/** A promise with its resolvers (Node 20 has no Promise.withResolvers). */
export function deferred<T = void>() {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}
