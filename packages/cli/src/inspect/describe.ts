import type { Message, ToolResultMessage } from '@bridle/llm'
import { textOf } from '@bridle/llm'
import type { SessionEvent } from '@bridle/session'
import { oneLine } from '../terminal.js'

/** Tool names by call id, from the `tool/call` events of a log, so a result line can say which tool answered. */
export function toolNamesByCall(events: readonly SessionEvent[]): Map<string, string> {
  const names = new Map<string, string>()
  for (const event of events) {
    if (event.type === 'tool/call') names.set(String(event.data.callId), event.data.name)
  }
  return names
}

/**
 * One readable line for a tool result: `read_file: 11 lines, 254 chars`, or `read_file failed: <first line>` for an
 * error result. `name` is the tool's name when known.
 */
export function describeToolResult(message: ToolResultMessage, name: string | undefined): string {
  const block = message.content[0]
  const text = block?.type === 'tool-result' ? textOf(block.content) : ''
  const tool = name ?? 'tool'
  if (block?.type === 'tool-result' && block.isError === true)
    return `${tool} failed: ${oneLine(text, 100) || '(no message)'}`
  if (text === '') return `${tool}: empty result`
  const lines = text.split('\n').length
  return `${tool}: ${lines} line${lines === 1 ? '' : 's'}, ${text.length} char${text.length === 1 ? '' : 's'}`
}

/** Who put a message on the surface, in words. */
export function describeSource(message: Message, toolNames: ReadonlyMap<string, string> = new Map()): string {
  const source = message.source as { kind: string; [key: string]: unknown }
  switch (source.kind) {
    case 'user':
      return 'user'
    case 'model':
      return `model ${source.provider}/${source.model}`
    case 'tool': {
      const name = toolNames.get(String(source.callId))
      return `${name ?? 'tool'} result (call ${source.callId})`
    }
    case 'plugin':
      return `plugin ${source.plugin}${source.form ? ` (${source.form})` : ''}`
    default:
      return source.kind
  }
}

/** A message's content flattened to text, with non-text blocks named (reasoning cut short unless `full`). */
export function describeContent(message: Message, full = false): string {
  return message.content
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text
        case 'reasoning':
          return `[reasoning: ${full ? block.text : oneLine(block.text, 32)}]`
        case 'tool-call':
          return `[tool call ${block.name} ${block.arguments}]`
        case 'tool-result':
          return `${block.isError ? '[error] ' : ''}${textOf(block.content)}`
        default:
          return `[${block.type}]`
      }
    })
    .join(' ')
}

/** The detail column of one event in `inspect`'s event list. */
export function describeEvent(event: SessionEvent, toolNames: ReadonlyMap<string, string>): string {
  const data = event.data as Record<string, unknown> | null
  switch (event.type) {
    case 'user/message':
      return describeSource(event.data as Message, toolNames)
    case 'assistant/chunk':
      return String((data?.chunk as { type?: string } | undefined)?.type)
    case 'assistant/message':
      return `${(data?.message as Message | undefined)?.content.map((b) => b.type).join(', ') || 'empty'}`
    case 'tool/call':
      return `${data?.name} ${data?.arguments}`
    case 'tool/result': {
      const message = data?.message as ToolResultMessage
      const callId = message.source.kind === 'tool' ? String((message.source as { callId: string }).callId) : '?'
      return describeToolResult(message, toolNames.get(callId))
    }
    case 'request/header': {
      const sections = (data?.sections as unknown[] | undefined)?.length
      return `reason ${data?.reason}${sections !== undefined ? ` · ${sections} section${sections === 1 ? '' : 's'}` : ''}`
    }
    case 'request/digest':
      return `attempt ${data?.attempt} request ${String(data?.request).slice(0, 12)}…`
    default:
      return data === null ? '' : oneLine(JSON.stringify(data), 100)
  }
}
