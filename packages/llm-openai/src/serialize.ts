/**
 * Request serialization: neutral `GenerateOptions` → the chat-completions JSON body.
 * Undefined fields are omitted, never sent as `null`. Everything here runs before any I/O, so a
 * request the route cannot carry fails without a byte leaving the process.
 */
import {
  LlmError,
  contentHasImage,
  textOf,
  type ContentBlock,
  type GenerateOptions,
  type JsonValue,
  type Message,
} from '@bridle/llm'
import type { OpenAICompatConfig } from './config.js'

/** A chat-completions message as sent on the wire. */
export type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'tool'; tool_call_id: string; content: string }
  | {
      role: 'assistant'
      content: string
      tool_calls?: WireToolCall[]
      reasoning_content?: string
    }

export interface WireToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

export interface WireTool {
  type: 'function'
  function: { name: string; description: string; parameters: Record<string, unknown> }
}

/**
 * Builds the complete request body for one call. Throws `LlmError` (`UNSUPPORTED_CONTENT`) when
 * the history carries an image; unknown block types are skipped.
 */
export function buildRequestBody(options: GenerateOptions, config: OpenAICompatConfig): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: options.model,
    messages: serializeMessages(options, config),
    stream: true,
  }
  if (config.includeUsage) body.stream_options = { include_usage: true }
  if (options.tools !== undefined && options.tools.length > 0) {
    body.tools = options.tools.map(
      (tool): WireTool => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }),
    )
  }
  if (options.temperature !== undefined) body.temperature = options.temperature
  if (options.stop !== undefined && options.stop.length > 0) body.stop = [...options.stop]
  if (options.maxTokens !== undefined) body[config.maxTokensField] = options.maxTokens
  if (options.reasoningEffort !== undefined) body.reasoning_effort = options.reasoningEffort
  const entry = config.models.find((m) => m.id === options.model)
  const extra: Record<string, JsonValue> = { ...config.extraBody, ...entry?.extraBody }
  for (const [key, value] of Object.entries(extra)) body[key] = value
  return body
}

/** The system prompt first, then the history in order. */
export function serializeMessages(options: GenerateOptions, config: OpenAICompatConfig): WireMessage[] {
  const out: WireMessage[] = []
  if (options.system !== undefined && options.system !== '') out.push({ role: 'system', content: options.system })
  for (const message of options.messages) {
    if (contentHasImage(message.content)) {
      throw new LlmError(`${config.displayName} route accepts text only`, 'UNSUPPORTED_CONTENT')
    }
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: textOf(message.content) })
        break
      case 'user':
        out.push(...serializeUser(message))
        break
      case 'assistant':
        out.push(serializeAssistant(message, options.provider, config))
        break
    }
  }
  return out
}

/** Tool results first (they must directly follow the assistant's tool calls), then the user text. */
function serializeUser(message: Message): WireMessage[] {
  const out: WireMessage[] = []
  let hasText = false
  let hasToolResult = false
  for (const block of message.content) {
    if (block.type === 'text') hasText = true
    if (block.type !== 'tool-result') continue
    hasToolResult = true
    out.push({ role: 'tool', tool_call_id: block.toolCallId, content: textOf(block.content) || '(no output)' })
  }
  if (hasText || !hasToolResult) out.push({ role: 'user', content: textOf(message.content) })
  return out
}

function serializeAssistant(message: Message, provider: string, config: OpenAICompatConfig): WireMessage {
  const toolCalls: WireToolCall[] = []
  for (const block of message.content) {
    if (block.type !== 'tool-call') continue
    const args = block.arguments.trim() === '' ? '{}' : block.arguments
    toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: args } })
  }
  const wire: WireMessage = { role: 'assistant', content: textOf(message.content) }
  if (toolCalls.length === 0) return wire
  wire.tool_calls = toolCalls
  const reasoning = reasoningOf(message.content)
  const sameRoute = message.source.kind === 'model' && message.source.provider === provider
  if (config.reasoningReplay === 'tool-turns' && reasoning !== '' && sameRoute) {
    wire.reasoning_content = reasoning
  }
  return wire
}

function reasoningOf(blocks: readonly ContentBlock[]): string {
  const parts: string[] = []
  for (const block of blocks) if (block.type === 'reasoning') parts.push(block.text)
  return parts.join('\n')
}
