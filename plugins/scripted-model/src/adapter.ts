import type { GenerateOptions, LlmAdapter, LlmModelInfo, Message, StreamChunk } from '@bridle/llm'
import { LlmError, callId, textOf } from '@bridle/llm'
import { fillToolResult, type ScriptedResponse, type ScriptedTurn } from './script.js'

export interface ScriptedAdapterOptions {
  turns: readonly ScriptedTurn[]
  /** Pause between streamed pieces, so a terminal shows the answer arriving. 0 = no pause. */
  delayMs?: number
  /** Answer to summary requests (`purpose: 'compaction'`); default: {@link scriptedSummary}. */
  summary?: string
  /** Advertised context window, if any. */
  contextWindow?: number
}

/**
 * The default answer to a summary request: the user's prompts in the summarized messages, listed. Deterministic,
 * and plainly not a model's summary.
 */
export function scriptedSummary(messages: readonly Message[]): string {
  const prompts = messages.filter(isHumanMessage).map((m) => `- ${textOf(m.content)}`)
  return `Summary (scripted): the user asked:\n${prompts.length > 0 ? prompts.join('\n') : '- nothing yet'}`
}

/** Where in the script a request stands: which turn, which step of it, and what the tools last returned. */
export interface ScriptPosition {
  turn: ScriptedTurn
  turnOrdinal: number
  step: number
  lastToolResult: string | undefined
}

const isHumanMessage = (m: Message) => m.role === 'user' && m.source.kind === 'user'

/**
 * Locates a request in the script from its history alone (no hidden state), so a resumed session or a
 * second process gets the same answer: the turn is the count of human messages, the step the count of
 * assistant messages after the latest one. A turn whose `match` regex hits the prompt wins over order.
 */
export function locate(turns: readonly ScriptedTurn[], messages: readonly Message[]): ScriptPosition {
  let humans = 0
  let lastHuman = -1
  messages.forEach((m, i) => {
    if (isHumanMessage(m)) {
      humans += 1
      lastHuman = i
    }
  })
  const after = messages.slice(lastHuman + 1)
  const prompt = lastHuman >= 0 ? textOf(messages[lastHuman]!.content) : ''
  const matched = turns.find((t) => t.match !== undefined && new RegExp(t.match, 'i').test(prompt))
  const ordered = turns.filter((t) => t.match === undefined)
  const pool = ordered.length > 0 ? ordered : turns
  const turnOrdinal = Math.max(0, humans - 1)
  let lastToolResult: string | undefined
  for (const m of after) {
    for (const block of m.content) if (block.type === 'tool-result') lastToolResult = textOf(block.content)
  }
  return {
    turn: matched ?? pool[turnOrdinal % pool.length]!,
    turnOrdinal,
    step: after.filter((m) => m.role === 'assistant').length,
    lastToolResult,
  }
}

/** Splits text into word-sized pieces (keeping whitespace) so the stream looks like a model's. */
const pieces = (text: string) => text.match(/\S+\s*|\s+/g) ?? []

function* chunksFor(response: ScriptedResponse, pos: ScriptPosition): Generator<StreamChunk> {
  let index = 0
  if (response.reasoning !== undefined) {
    yield { type: 'block-start', index, blockType: 'reasoning' }
    for (const text of pieces(response.reasoning)) yield { type: 'reasoning-delta', index, text }
    yield { type: 'block-end', index, block: { type: 'reasoning', text: response.reasoning } }
    index += 1
  }
  if (response.text !== undefined) {
    const text = fillToolResult(response.text, pos.lastToolResult)
    yield { type: 'block-start', index, blockType: 'text' }
    for (const piece of pieces(text)) yield { type: 'text-delta', index, text: piece }
    yield { type: 'block-end', index, block: { type: 'text', text } }
    index += 1
  }
  const calls = response.toolCalls ?? []
  for (const [i, call] of calls.entries()) {
    const id = callId(call.id ?? `scripted-${pos.turnOrdinal + 1}-${pos.step + 1}-${i + 1}`)
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments)
    yield { type: 'block-start', index, blockType: 'tool-call' }
    yield { type: 'tool-call-delta', index, id, name: call.name, argumentsDelta: args }
    yield { type: 'block-end', index, block: { type: 'tool-call', id, name: call.name, arguments: args } }
    index += 1
  }
  yield { type: 'finish', reason: calls.length > 0 ? { kind: 'tool-calls' } : { kind: 'stop' } }
}

/**
 * Waits `ms`, or less if `signal` aborts. The abort listener is removed when the pause ends: one request pauses
 * once per streamed piece, and a listener left behind per piece piles up on the request's signal
 * (`MaxListenersExceededWarning`) for as long as the request lives.
 */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

/** A deterministic `LlmAdapter` that answers from a script. It never pretends to be a real model. */
export function createScriptedAdapter(options: ScriptedAdapterOptions): LlmAdapter {
  const delayMs = options.delayMs ?? 0
  return {
    providerInfo: (provider) => ({ id: provider, name: `${provider} (scripted, offline)` }),
    resolveModel: (provider, model): LlmModelInfo => ({
      provider,
      id: model,
      name: `${model} (scripted)`,
      description: 'Deterministic responses from a script. Not a language model.',
      ...(options.contextWindow !== undefined ? { context: { contextWindow: options.contextWindow } } : {}),
    }),
    async *stream(request: GenerateOptions): AsyncIterable<StreamChunk> {
      if (request.purpose === 'compaction') {
        const text = options.summary ?? scriptedSummary(request.messages.slice(0, -1))
        yield* chunksFor({ text }, { turn: options.turns[0]!, turnOrdinal: 0, step: 0, lastToolResult: undefined })
        return
      }
      const pos = locate(options.turns, request.messages)
      const response = pos.turn.steps[pos.step]
      if (response === undefined) {
        throw new LlmError(
          `scripted model: turn ${pos.turnOrdinal + 1} has ${pos.turn.steps.length} scripted step(s), ` +
            `but step ${pos.step + 1} was requested`,
          'SCRIPT_EXHAUSTED',
        )
      }
      const aborted = () => new LlmError('scripted model: request aborted', 'ABORTED')
      for (const chunk of chunksFor(response, pos)) {
        if (request.signal?.aborted) throw aborted()
        if (delayMs > 0 && (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta')) {
          await pause(delayMs, request.signal)
          // an abort ends the pause early; the piece after it is not sent
          if (request.signal?.aborted) throw aborted()
        }
        yield chunk
      }
    },
  }
}
