import type { ContentBlock, Message } from '@bridle/llm'
import type { BlockView, MessageView } from '../types.js'

/** Who produced a message, in words: `user`, `model p/m`, `tool result for ID`, `plugin NAME (form)`. */
export function describeSource(message: Message): string {
  const source = (message.source ?? { kind: 'unknown' }) as { kind: string; [key: string]: unknown }
  switch (source.kind) {
    case 'user':
      return 'user'
    case 'model':
      return `model ${String(source.provider)}/${String(source.model)}`
    case 'tool':
      return `tool result for ${String(source.callId)}`
    case 'plugin':
      return `plugin ${String(source.plugin)}${source.form ? ` (${String(source.form)})` : ''}`
    default:
      return String(source.kind)
  }
}

/** The text of text blocks, joined; tool results contribute their own text blocks. */
export function plainText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = []
  for (const block of blocks) {
    if (block.type === 'text') parts.push(block.text)
    else if (block.type === 'tool-result') parts.push(plainText(block.content))
  }
  return parts.join('\n')
}

/** One content block as the page shows it; unknown block types keep their type name. */
export function blockView(block: ContentBlock): BlockView {
  switch (block.type) {
    case 'text':
    case 'reasoning':
      return { type: block.type, text: block.text }
    case 'tool-call':
      return { type: 'tool-call', id: block.id, name: block.name, arguments: block.arguments }
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: block.toolCallId,
        text: plainText(block.content),
        isError: block.isError === true,
      }
    default:
      return { type: 'other', label: String((block as { type: unknown }).type) }
  }
}

/** A message of a request, with the event that put it on the surface when known. */
export function messageView(
  message: Message,
  origin?: { seq: number; type: string; replacement: boolean },
): MessageView {
  return {
    role: message.role,
    source: describeSource(message),
    sourceKind: String((message.source as { kind?: unknown } | undefined)?.kind ?? 'unknown'),
    ...(origin
      ? { seq: origin.seq, eventType: origin.type, ...(origin.replacement ? { replacement: true } : {}) }
      : {}),
    blocks: message.content.map(blockView),
  }
}

/** A turn's end reason in words. */
export function describeTurnEnd(reason: { kind: string; [key: string]: unknown } | undefined): string {
  if (!reason) return 'open'
  if (reason.kind === 'error') {
    const error = reason.error as { message?: string; code?: string } | undefined
    return `error: ${error?.message ?? 'unknown'}${error?.code ? ` (${error.code})` : ''}`
  }
  if (reason.kind === 'aborted') return `aborted (${(reason.reason as { kind?: string } | undefined)?.kind ?? '?'})`
  if (reason.kind === 'max-steps') return `max-steps (stopped at its cap of ${reason.steps} steps)`
  return reason.kind
}
