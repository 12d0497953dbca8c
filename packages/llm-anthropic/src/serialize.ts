/**
 * Request serialization: neutral `GenerateOptions` → the Messages API JSON body (README.md#request-mapping).
 * Everything here runs before any I/O, so a request the route cannot carry fails without a byte leaving the
 * process. Cache breakpoints from `options.cache` become `cache_control` markers on the blocks they end.
 */
import {
  LlmError,
  contentHasImage,
  textOf,
  type CacheBreakpoint,
  type ContentBlock,
  type GenerateOptions,
  type JsonValue,
  type Message,
} from '@bridle/llm'
import { FALLBACK_MAX_TOKENS, effortsOf, type AnthropicConfig } from './config.js'
import { replayedBlocks } from './replay.js'

/** A `cache_control` marker as the wire carries it. */
export interface WireCacheControl {
  type: 'ephemeral'
  ttl?: '1h'
}

export type WireBlock = Record<string, unknown> & { type: string; cache_control?: WireCacheControl }

export interface WireMessage {
  role: 'user' | 'assistant'
  content: WireBlock[]
}

/** Text the API would refuse as empty is sent as this instead (an empty text block is a 400). */
const EMPTY_TEXT = '(empty)'
const NO_OUTPUT = '(no output)'
/** The smallest `budget_tokens` the API takes. */
const MIN_THINKING_BUDGET = 1024

/**
 * Builds the complete request body for one call. Throws `LlmError` (`UNSUPPORTED_CONTENT`) when the history carries
 * an image, and `UNSUPPORTED_REASONING_EFFORT` when the model's thinking mode does not know the effort.
 */
export function buildRequestBody(options: GenerateOptions, config: AnthropicConfig): Record<string, unknown> {
  const entry = config.models.find((m) => m.id === options.model)
  const marks = cacheMarks(options.cache?.breakpoints ?? [])
  const body: Record<string, unknown> = {
    model: options.model,
    max_tokens: options.maxTokens ?? entry?.defaultMaxTokens ?? FALLBACK_MAX_TOKENS,
    stream: true,
  }
  const system = systemBlocks(options.system ?? '', marks.system)
  if (system.length > 0) body.system = system
  body.messages = serializeMessages(options, config, marks.messages)
  if (options.tools !== undefined && options.tools.length > 0) {
    body.tools = options.tools.map((tool, i) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters,
      ...(i === options.tools!.length - 1 && marks.tools !== undefined ? { cache_control: marks.tools } : {}),
    }))
  }
  if (options.temperature !== undefined) body.temperature = options.temperature
  if (options.stop !== undefined && options.stop.length > 0) body.stop_sequences = [...options.stop]
  if (options.reasoningEffort !== undefined) Object.assign(body, thinkingFields(options, entry, config))
  const extra: Record<string, JsonValue> = { ...config.extraBody, ...entry?.extraBody }
  for (const [key, value] of Object.entries(extra)) body[key] = value
  return body
}

/** `thinking` (and `output_config`) for the requested effort, from the model's thinking mode. */
function thinkingFields(
  options: GenerateOptions,
  entry: AnthropicConfig['models'][number] | undefined,
  config: AnthropicConfig,
): Record<string, unknown> {
  const effort = options.reasoningEffort as string
  const thinking = entry?.thinking
  if (thinking === undefined || !effortsOf(thinking).includes(effort)) {
    throw new LlmError(
      `${config.displayName} model ${options.model} has no reasoning effort "${effort}"`,
      'UNSUPPORTED_REASONING_EFFORT',
    )
  }
  if (thinking.mode === 'budget') {
    // the API wants the budget below max_tokens: a smaller max_tokens caps it, down to the 1,024-token minimum
    const maxTokens = options.maxTokens ?? entry?.defaultMaxTokens ?? FALLBACK_MAX_TOKENS
    const budget = Math.min(thinking.budgets[effort]!, maxTokens - 1)
    if (budget < MIN_THINKING_BUDGET) {
      throw new LlmError(
        `${config.displayName} model ${options.model}: maxTokens ${maxTokens} leaves no room for a thinking budget (at least ${MIN_THINKING_BUDGET} tokens below it)`,
        'INVALID_REQUEST',
      )
    }
    return { thinking: { type: 'enabled', budget_tokens: budget } }
  }
  return { thinking: { type: 'adaptive' }, output_config: { effort } }
}

interface CacheMarks {
  tools?: WireCacheControl
  system: Map<number, WireCacheControl>
  /** Key `index:block`. */
  messages: Map<string, WireCacheControl>
}

function cacheMarks(breakpoints: readonly CacheBreakpoint[]): CacheMarks {
  const marks: CacheMarks = { system: new Map(), messages: new Map() }
  for (const bp of breakpoints) {
    const control: WireCacheControl = bp.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' }
    if (bp.at === 'tools') marks.tools = control
    else if (bp.at === 'system') marks.system.set(bp.offset, control)
    else marks.messages.set(`${bp.index}:${bp.block}`, control)
  }
  return marks
}

/**
 * The system string as text blocks, split at the breakpoint offsets (the blocks joined give the string back), each
 * block that ends at a breakpoint carrying its marker. No breakpoint: one block; empty string: none.
 */
export function systemBlocks(system: string, marks: ReadonlyMap<number, WireCacheControl>): WireBlock[] {
  if (system === '') return []
  const cuts = [...marks.keys()].filter((offset) => offset > 0 && offset < system.length).sort((a, b) => a - b)
  const blocks: WireBlock[] = []
  let from = 0
  for (const cut of [...cuts, system.length]) {
    const control = marks.get(cut)
    blocks.push({
      type: 'text',
      text: system.slice(from, cut),
      ...(control === undefined ? {} : { cache_control: control }),
    })
    from = cut
  }
  return blocks
}

/**
 * The history in order. Consecutive messages of one role share a wire message (the API alternates roles; tool
 * results must open the user turn after the tool calls); a `system` message in the history travels as user text.
 */
export function serializeMessages(
  options: GenerateOptions,
  config: AnthropicConfig,
  marks: ReadonlyMap<string, WireCacheControl> = new Map(),
): WireMessage[] {
  const out: WireMessage[] = []
  options.messages.forEach((message, index) => {
    if (contentHasImage(message.content)) {
      throw new LlmError(`${config.displayName} route accepts text only`, 'UNSUPPORTED_CONTENT')
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user'
    const blocks = role === 'assistant' ? assistantBlocks(message, options.provider) : userBlocks(message)
    // a marker goes on the wire block that holds the neutral block it names, else on the message's last block that
    // may carry one (the API refuses `cache_control` on thinking blocks)
    for (const [key, control] of marks) {
      const [at, block] = key.split(':').map(Number) as [number, number]
      if (at !== index) continue
      const markable = blocks.filter((b) => b.wire.type !== 'thinking' && b.wire.type !== 'redacted_thinking')
      const target = markable.find((b) => b.from === block) ?? markable.at(-1)
      if (target !== undefined) target.wire.cache_control = control
    }
    if (blocks.length === 0) return
    const last = out[out.length - 1]
    const wire = blocks.map((b) => b.wire)
    if (last?.role === role) {
      // tool results lead the user turn: the protocol wants them directly after the tool calls
      if (role === 'user') last.content = orderToolResultsFirst([...last.content, ...wire])
      else last.content.push(...wire)
    } else out.push({ role, content: role === 'user' ? orderToolResultsFirst(wire) : wire })
  })
  return out
}

interface Placed {
  /** Index of the neutral block it came from (`-1` for replayed thinking). */
  from: number
  wire: WireBlock
}

function userBlocks(message: Message): Placed[] {
  const out: Placed[] = []
  message.content.forEach((block, from) => {
    if (block.type === 'text')
      out.push({ from, wire: { type: 'text', text: block.text === '' ? EMPTY_TEXT : block.text } })
    else if (block.type === 'tool-result') {
      const text = textOf(block.content)
      out.push({
        from,
        wire: {
          type: 'tool_result',
          tool_use_id: block.toolCallId,
          content: text === '' ? NO_OUTPUT : text,
          ...(block.isError === true ? { is_error: true } : {}),
        },
      })
    }
  })
  if (out.length === 0 && message.content.length === 0) out.push({ from: 0, wire: { type: 'text', text: EMPTY_TEXT } })
  return out
}

function assistantBlocks(message: Message, provider: string): Placed[] {
  const source = message.source
  const state = source.kind === 'model' && source.provider === provider ? source.replayState : undefined
  const out: Placed[] = []
  const indexOf = new Map<ContentBlock, number>(message.content.map((block, i) => [block, i]))
  for (const item of replayedBlocks(message.content, state)) {
    if (item.kind === 'thinking') {
      out.push({ from: -1, wire: { type: 'thinking', thinking: item.thinking, signature: item.signature } })
      continue
    }
    if (item.kind === 'redacted_thinking') {
      out.push({ from: -1, wire: { type: 'redacted_thinking', data: item.data } })
      continue
    }
    const block = item.block
    const from = indexOf.get(block) ?? -1
    if (block.type === 'text' && block.text !== '') out.push({ from, wire: { type: 'text', text: block.text } })
    else if (block.type === 'tool-call') {
      out.push({ from, wire: { type: 'tool_use', id: block.id, name: block.name, input: toolInput(block.arguments) } })
    }
  }
  return out
}

/**
 * The raw arguments text as the object `tool_use.input` must be: parsed when it is a JSON object, `{}` when empty or
 * not an object (the tool registry already answered such a call with an error result the model will read).
 */
function toolInput(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {}
  try {
    const value: unknown = JSON.parse(raw)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

function orderToolResultsFirst(blocks: WireBlock[]): WireBlock[] {
  return [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')]
}
