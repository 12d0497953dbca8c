/**
 * An in-process app for the compaction tests: the real core packages, `@bridle/plugin-compaction`, and a model on
 * route `mock` that advertises a context window, reports usage for what it received (one token per four characters
 * of the request's text, a stand-in tokenizer) and answers summary requests (`purpose: 'compaction'`) by a script
 * or with a fixed text.
 */
import { afterEach, beforeEach } from 'vitest'
import { Context, Logger } from 'cordis'
import { AgentLoop, type Agent } from '@bridle/agent-loop'
import {
  createUserMessage,
  LlmRuntime,
  type ContentBlock,
  type GenerateOptions,
  type Message,
  type StreamChunk,
  type UserMessage,
} from '@bridle/llm'
import { SessionStore, type AnySessionEvent } from '@bridle/session'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Compaction } from '../src/index.js'

export type Chunks = StreamChunk[] | AsyncIterable<StreamChunk>
export type Responder = (request: GenerateOptions) => Chunks

export interface App {
  ctx: Context
  /** Every request the model received, summary requests included, in order. */
  requests: GenerateOptions[]
  /** Conversation answers, one per conversation request (default: `say('ok')`). */
  answers: Responder[]
  /** Summary answers, one per summary request (default: a summary naming how many messages it read). */
  summaries: Responder[]
  plugin: Compaction | undefined
  agent(options?: Parameters<AgentLoop['create']>[0]): Agent
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
    case 'reasoning':
      return block.text
    case 'tool-call':
      return block.name + block.arguments
    case 'tool-result':
      return block.content.map(blockText).join('')
    default:
      return ''
  }
}

/** The stand-in tokenizer: 4 characters per token over system, tool JSON and message text, plus 3 per message. */
export function countTokens(request: GenerateOptions): number {
  let chars = (request.system ?? '').length + JSON.stringify(request.tools ?? []).length
  let framing = 0
  for (const m of request.messages as readonly Message[]) {
    chars += m.content.map(blockText).join('').length
    framing += 3
  }
  return Math.ceil(chars / 4) + framing
}

/** Chunks of a text answer with the given usage. */
export function textChunks(
  text: string,
  inputTokens: number,
  outputTokens = Math.ceil(text.length / 4),
): StreamChunk[] {
  return [
    { type: 'block-start', index: 0, blockType: 'text' },
    { type: 'text-delta', index: 0, text },
    { type: 'block-end', index: 0, block: { type: 'text', text } },
    { type: 'usage', usage: { inputTokens, outputTokens } },
    { type: 'finish', reason: { kind: 'stop' } },
  ]
}

/** A text answer; usage is counted from the request. */
export const say =
  (text: string): Responder =>
  (request) =>
    textChunks(text, countTokens(request))

/** An answer that calls one tool. */
export const callTool =
  (id: string, name: string, args = '{}'): Responder =>
  (request) => [
    { type: 'block-start', index: 0, blockType: 'tool-call' },
    { type: 'tool-call-delta', index: 0, id: id as never, name, argumentsDelta: args },
    { type: 'block-end', index: 0, block: { type: 'tool-call', id: id as never, name, arguments: args } },
    { type: 'usage', usage: { inputTokens: countTokens(request), outputTokens: 10 } },
    { type: 'finish', reason: { kind: 'tool-calls' } },
  ]

/** A stream that fails with an error finish. */
export const fail =
  (code: string, message = 'boom'): Responder =>
  () => [{ type: 'finish', reason: { kind: 'error', failure: { message, code } } }]

export const user = (text: string): UserMessage => createUserMessage(text)

/** A deterministic text of about `chars` characters. */
export function filler(label: string, chars: number): string {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta']
  let out = label
  for (let i = 0; out.length < chars; i++) out += ' ' + words[i % words.length]
  return out.slice(0, chars)
}

export const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

/**
 * Boots the app. `contextWindow` is what route `mock` advertises (omit it to advertise none); `compaction` is the
 * plugin config (`false` leaves the plugin out).
 */
export function bootApp(options: { contextWindow?: number; compaction?: Record<string, unknown> | false } = {}): App {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(LlmRuntime)
  ctx.plugin(SystemPrompt, {})
  ctx.plugin(ToolRegistry)
  ctx.plugin(AgentLoop, {})
  const requests: GenerateOptions[] = []
  const answers: Responder[] = []
  const summaries: Responder[] = []
  const window = options.contextWindow
  ctx.llm.registerAdapter(['mock'], {
    resolveModel: (provider, model) => ({
      provider,
      id: model,
      name: model,
      ...(window ? { context: { contextWindow: window } } : {}),
    }),
    async *stream(request: GenerateOptions) {
      requests.push(request)
      if (request.purpose === 'compaction') {
        const next = summaries.shift()
        yield* next
          ? next(request)
          : textChunks(`summary of ${request.messages.length - 1} messages`, countTokens(request))
        return
      }
      yield* (answers.shift() ?? say('ok'))(request)
    },
  })
  const app: App = {
    ctx,
    requests,
    answers,
    summaries,
    plugin: undefined,
    agent: (o = {}) => ctx.agentLoop.create({ provider: 'mock', model: 'm1', ...o }),
  }
  if (options.compaction !== false) {
    // a subclass only to hand the test the instance cordis constructs
    class Captured extends Compaction {
      constructor(c: Context, config?: unknown) {
        super(c, config)
        app.plugin = this
      }
    }
    ctx.plugin(Captured, options.compaction ?? {})
  }
  return app
}

/** Sends `text`, waits until the agent is idle. */
export async function turn(agent: Agent, text: string): Promise<void> {
  agent.followup(user(text))
  await agent.whenIdle()
}

/**
 * Captures the warnings `@bridle/plugin-compaction` and the agent loop log in each test of the calling file, instead
 * of printing them, so tests assert the warnings they provoke. Returns the live list.
 */
export function captureWarnings(): string[] {
  const seen: string[] = []
  let saved: unknown[] = []
  const target = {
    levels: { base: 2 },
    record(r: { name: string; type: string; content: string }) {
      if (r.type === 'warn' && (r.name === 'plugin-compaction' || r.name === 'agent-loop')) seen.push(r.content)
    },
  }
  beforeEach(() => {
    seen.length = 0
    saved = Logger.targets.splice(0, Logger.targets.length, target as never)
  })
  afterEach(() => {
    Logger.targets.splice(0, Logger.targets.length, ...(saved as never[]))
  })
  return seen
}

function firstText(m: { content: readonly ContentBlock[] }): string {
  const text = m.content.map((b) => (b.type === 'text' ? b.text : `<${b.type}>`)).join('|')
  if (text.startsWith('Current runtime context.')) return '[snapshot]'
  if (text.startsWith('Summary of the earlier conversation')) return '[checkpoint]'
  return text.split(' ').slice(0, 2).join(' ')
}

/** One compact line per session event, for asserting exact orders. */
export function describe(e: AnySessionEvent): string {
  const d = e.data as Record<string, any>
  switch (e.type) {
    case 'turn/start':
      return `turn/start ${d.turn}`
    case 'turn/end':
      return `turn/end ${d.turn} ${d.reason.kind}${d.reason.kind === 'error' ? `:${d.reason.error.code}` : ''}`
    case 'step/start':
    case 'step/end':
      return `${e.type} ${d.turn}.${d.step}`
    case 'user/message': {
      const op = e.surfaceOp
      return `user/message ${firstText(d as Message)}${typeof op === 'object' ? ` replace ${op.start}..${op.end}` : ''}`
    }
    case 'assistant/chunk':
      return `chunk ${d.chunk.type}`
    case 'assistant/message':
      return `assistant/message ${d.turn}.${d.step}`
    case 'tool/call':
      return `tool/call ${d.callId}`
    case 'tool/result':
      return `tool/result ${d.message.source.callId}`
    case 'request/header':
      return `request/header ${d.reason}`
    case 'request/compaction':
      return `request/compaction ${d.turn}.${d.step} ${d.reason} count=${d.count}`
    case 'request/digest':
      return `request/digest ${d.turn}.${d.step}#${d.attempt}${d.purpose ? ` ${d.purpose}` : ''}`
    case 'agent/inbox/spliced':
      return `spliced ${d.target}`
    default:
      return e.type
  }
}

/** The described events from the first of `type` on (`count` lines). */
export function traceFrom(events: readonly AnySessionEvent[], type: string, count: number, nth = 0): string[] {
  const starts = events.filter((e) => e.type === type)
  const at = starts[nth]!.seq
  return events.slice(at, at + count).map(describe)
}

/** Runs `turns` turns whose prompt and answer have about `chars` characters each (numbered from `from`). */
export async function chat(app: App, agent: Agent, turns: number, chars = 400, from = 1): Promise<void> {
  for (let i = from; i < from + turns; i++) {
    app.answers.push(say(filler(`answer ${i}`, chars)))
    await turn(agent, filler(`prompt ${i}`, chars))
  }
}
