/**
 * Message contents on spans, when a user opts in: the request's system string, tools and messages and the model's
 * answer in the GenAI conventions' JSON shapes (`gen_ai.input.messages`, `gen_ai.output.messages`, …), each written
 * as one JSON string and passed through `redactSecrets` (`@bridle/llm/secrets`) before it leaves the process.
 */
import type { ContentBlock, Message, ToolSchema } from '@bridle/llm'
import { redactSecrets } from '@bridle/llm/secrets'

/** What content capture needs: the secret values to replace with `[redacted]`. */
export interface ContentCapture {
  readonly secrets: readonly string[]
}

type Part = Record<string, unknown>

/** The tool-call arguments as an object when they are JSON (the conventions ask for structure), else the raw text. */
function argumentsOf(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/** Text of a tool result's content: its text blocks joined, or its JSON when it holds anything else. */
export function resultText(content: readonly ContentBlock[]): string {
  if (content.every((block) => block.type === 'text')) return content.map((block) => block.text).join('\n')
  return JSON.stringify(content)
}

/** One content block as a conventions message part. */
function partOf(block: ContentBlock): Part {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: block.text }
    case 'reasoning':
      return { type: 'reasoning', content: block.text }
    case 'tool-call':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: argumentsOf(block.arguments) }
    case 'tool-result':
      return { type: 'tool_call_response', id: block.toolCallId, response: resultText(block.content) }
    case 'image':
      return { type: 'file', modality: 'image', mime_type: block.attachment.mediaType, file_id: block.attachment.id }
    default:
      return { ...(block as object), type: String((block as { type?: unknown }).type) }
  }
}

/** A Bridle message as a conventions input message; a user-role message of tool results has the role `tool`. */
function inputMessage(message: Message): Part {
  const parts = message.content.map(partOf)
  const toolResults = message.role === 'user' && message.content.length > 0
  const role = toolResults && message.content.every((block) => block.type === 'tool-result') ? 'tool' : message.role
  return { role, parts }
}

/** `value` as JSON, with every known secret (and URL userinfo) replaced. */
export function redactedJson(value: unknown, capture: ContentCapture): string {
  return redactSecrets(JSON.stringify(value), capture.secrets)
}

export const redactedText = (text: string, capture: ContentCapture): string => redactSecrets(text, capture.secrets)

/** `gen_ai.input.messages` of a request. */
export const inputMessages = (messages: readonly Message[], capture: ContentCapture): string =>
  redactedJson(messages.map(inputMessage), capture)

/** `gen_ai.system_instructions` of a request's system string. */
export const systemInstructions = (system: string, capture: ContentCapture): string =>
  redactedJson([{ type: 'text', content: system }], capture)

/** `gen_ai.tool.definitions` of a request's tools. */
export const toolDefinitions = (tools: readonly ToolSchema[], capture: ContentCapture): string =>
  redactedJson(
    tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
    })),
    capture,
  )

/** `gen_ai.output.messages`: the blocks the model completed, as one assistant message. */
export function outputMessages(
  blocks: readonly ContentBlock[],
  finishReason: string | undefined,
  capture: ContentCapture,
): string {
  const message: Part = { role: 'assistant', parts: blocks.map(partOf) }
  if (finishReason !== undefined) message.finish_reason = finishReason
  return redactedJson([message], capture)
}
