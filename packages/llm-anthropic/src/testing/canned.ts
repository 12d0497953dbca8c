/**
 * Canned Messages API streams, shaped as the API sends them: `message_start` with the input and cache usage, one
 * `content_block_start`/`_delta`…/`_stop` run per block, `message_delta` with the stop reason and the cumulative
 * output tokens, `message_stop`. Pure and deterministic (fixed ids).
 */
import type { MessagesSseItem } from './mock-server.js'

/** Usage as `message_start` reports it. */
export interface WireUsage {
  input_tokens: number
  output_tokens?: number
  cache_creation_input_tokens?: number | null
  cache_read_input_tokens?: number | null
}

export type CannedBlock =
  | { type: 'text'; fragments: string[] }
  | { type: 'thinking'; fragments: string[]; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; fragments: string[] }

export interface AnswerOptions {
  /** `end_turn` by default; `tool_use` when a tool_use block is present; `null` sends no stop reason. */
  stopReason?: string | null
  usage?: WireUsage
  outputTokens?: number
  model?: string
  /** A `ping` after `message_start`, as the API sends one. Default true. */
  ping?: boolean
  /** Leave out `message_stop` (and the `message_delta`), to cut the stream after the blocks. */
  cutAfterBlocks?: boolean
}

export const PING: MessagesSseItem = { event: 'ping', data: { type: 'ping' } }

/** `message_start` with empty content. */
export function messageStart(
  usage: WireUsage = { input_tokens: 3, output_tokens: 1 },
  model = 'mock-claude',
): MessagesSseItem {
  return {
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: 'msg_mock_01',
        type: 'message',
        role: 'assistant',
        content: [],
        model,
        stop_reason: null,
        stop_sequence: null,
        usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
      },
    },
  }
}

/** The events of one block at wire `index`. */
export function blockEvents(block: CannedBlock, index: number): MessagesSseItem[] {
  const delta = (d: object): MessagesSseItem => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: d },
  })
  const start = (content_block: object): MessagesSseItem => ({
    event: 'content_block_start',
    data: { type: 'content_block_start', index, content_block },
  })
  const stop: MessagesSseItem = { event: 'content_block_stop', data: { type: 'content_block_stop', index } }
  switch (block.type) {
    case 'text':
      return [
        start({ type: 'text', text: '' }),
        ...block.fragments.map((text) => delta({ type: 'text_delta', text })),
        stop,
      ]
    case 'thinking':
      return [
        start({ type: 'thinking', thinking: '', signature: '' }),
        ...block.fragments.map((thinking) => delta({ type: 'thinking_delta', thinking })),
        delta({ type: 'signature_delta', signature: block.signature }),
        stop,
      ]
    case 'redacted_thinking':
      return [start({ type: 'redacted_thinking', data: block.data }), stop]
    case 'tool_use':
      return [
        start({ type: 'tool_use', id: block.id, name: block.name, input: {} }),
        ...block.fragments.map((partial_json) => delta({ type: 'input_json_delta', partial_json })),
        stop,
      ]
  }
}

/** A whole answer: start, ping, the blocks in order, the stop reason with output usage, stop. */
export function answerEvents(blocks: CannedBlock[], options: AnswerOptions = {}): MessagesSseItem[] {
  const out: MessagesSseItem[] = [messageStart(options.usage, options.model)]
  if (options.ping !== false) out.push(PING)
  blocks.forEach((block, i) => out.push(...blockEvents(block, i)))
  if (options.cutAfterBlocks === true) return out
  const stopReason =
    options.stopReason === undefined
      ? blocks.some((b) => b.type === 'tool_use')
        ? 'tool_use'
        : 'end_turn'
      : options.stopReason
  out.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: options.outputTokens ?? 5 },
    },
  })
  out.push({ event: 'message_stop', data: { type: 'message_stop' } })
  return out
}

/** A text answer. */
export function textAnswer(fragments: string[], options: AnswerOptions = {}): MessagesSseItem[] {
  return answerEvents([{ type: 'text', fragments }], options)
}

/** An answer of parallel tool calls (each `args` JSON text split in two fragments). */
export function toolUseAnswer(
  calls: { id: string; name: string; args: string }[],
  options: AnswerOptions = {},
): MessagesSseItem[] {
  const blocks: CannedBlock[] = calls.map((c) => {
    const cut = Math.floor(c.args.length / 2)
    return { type: 'tool_use', id: c.id, name: c.name, fragments: [c.args.slice(0, cut), c.args.slice(cut)] }
  })
  return answerEvents(blocks, options)
}

/** An in-stream `error` event, e.g. `errorEvent('overloaded_error', 'Overloaded')`. */
export function errorEvent(type: string, message: string): MessagesSseItem {
  return { event: 'error', data: { type: 'error', error: { type, message } } }
}

/** An error answer's body as the API sends it. */
export function errorBody(type: string, message: string, requestId = 'req_mock_01'): object {
  return { type: 'error', error: { type, message }, request_id: requestId }
}
