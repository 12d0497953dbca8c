/**
 * Content blocks: the neutral pieces a message is made of. The union is built from an interface map
 * so other packages can add block types by declaration merging.
 */
import type { CallId } from './ids.js'

/** A durable reference to an image; the seam never carries bytes. */
export interface ImageAttachmentRef {
  id: string
  mediaType: string
}

export interface TextBlock {
  type: 'text'
  text: string
}

export interface ReasoningBlock {
  type: 'reasoning'
  text: string
}

export interface ToolCallBlock {
  type: 'tool-call'
  id: CallId
  name: string
  /** The raw JSON text the model produced; never parsed or re-serialized by the seam. */
  arguments: string
}

export interface ImageBlock {
  type: 'image'
  attachment: ImageAttachmentRef
}

export interface ToolResultBlock {
  type: 'tool-result'
  toolCallId: CallId
  content: ContentBlock[]
  isError?: true
}

/**
 * The extensible block map, keyed by `type`. Extend it with
 * `declare module '@bridle/llm' { interface ContentBlockMap { mine: MyBlock } }`.
 */
export interface ContentBlockMap {
  text: TextBlock
  reasoning: ReasoningBlock
  'tool-call': ToolCallBlock
  image: ImageBlock
  'tool-result': ToolResultBlock
}

/** Any content block. */
export type ContentBlock = ContentBlockMap[keyof ContentBlockMap]
/** The `type` tag of any content block. */
export type ContentBlockType = ContentBlock['type']

/** Joins the `text` of the `text` blocks only (reasoning and tool blocks are skipped). */
export function textOf(blocks: readonly ContentBlock[], separator = '\n'): string {
  const parts: string[] = []
  for (const block of blocks) {
    if (block.type === 'text') parts.push((block as TextBlock).text)
  }
  return parts.join(separator)
}

/** Narrows a block to the block type named by `type`. */
export function isBlockType<K extends keyof ContentBlockMap>(
  block: ContentBlock | null | undefined,
  type: K,
): block is ContentBlockMap[K] {
  return block != null && block.type === type
}

/** True when any block, including blocks nested in `tool-result` content, is an `image`. */
export function contentHasImage(blocks: readonly ContentBlock[]): boolean {
  const stack: (readonly ContentBlock[])[] = [blocks]
  while (stack.length) {
    const list = stack.pop()!
    for (const block of list) {
      if (block.type === 'image') return true
      if (block.type === 'tool-result' && Array.isArray((block as ToolResultBlock).content)) {
        stack.push((block as ToolResultBlock).content)
      }
    }
  }
  return false
}
