import type { ContentBlock, JsonValue } from '@bridle/llm'
import { createHash } from 'node:crypto'
import { McpToolError } from './errors.js'

/** How image results reach the model (the server row's `images`). */
export type ImageMode = 'text' | 'attach'

/** An MCP `tools/call` result as the SDK hands it over (only the fields read here). */
export interface McpCallResult {
  content?: readonly McpContent[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

/** One MCP content item, loosely typed: servers may send types newer than this plugin. */
export type McpContent = { type: string; [key: string]: unknown }

/** What a call's result keeps durably beside its content (the model never sees `meta`). */
export interface McpResultMeta {
  /** The server's `structuredContent`, exactly as sent. */
  structuredContent?: JsonValue
  /** Image bytes by attachment id, when `images: attach` put `image` blocks in the content. */
  attachments?: Record<string, { mediaType: string; data: string }>
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

function digestOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** A binary item the model cannot see, described in one line it can read. */
function describeBinary(kind: string, mediaType: string, base64: string): string {
  const bytes = Buffer.from(base64, 'base64')
  return `[${kind}: ${mediaType}, ${bytes.length} bytes, sha256 ${digestOf(bytes).slice(0, 16)}; not shown]`
}

function resourceText(item: McpContent): string {
  const resource = (item.resource ?? {}) as Record<string, unknown>
  const uri = str(resource.uri) ?? '(no uri)'
  const type = str(resource.mimeType)
  const head = `[resource ${uri}${type ? ` (${type})` : ''}]`
  if (typeof resource.text === 'string') return `${head}\n${resource.text}`
  if (typeof resource.blob === 'string')
    return describeBinary(`resource ${uri}`, type ?? 'application/octet-stream', resource.blob)
  return head
}

function linkText(item: McpContent): string {
  const label = str(item.title) ?? str(item.name) ?? ''
  const type = str(item.mimeType)
  const description = str(item.description)
  return `[resource link: ${label ? `${label} ` : ''}${str(item.uri) ?? '(no uri)'}${type ? ` (${type})` : ''}${description ? ` — ${description}` : ''}]`
}

/**
 * Maps an MCP tool result onto what a Bridle tool body returns: `{ content, meta? }`.
 * - `text` stays text; `resource` (embedded) becomes its text under a `[resource <uri>]` line; `resource_link` and
 *   any unknown item type become one descriptive text line.
 * - `image`: with `images: 'text'` a line naming its type, size and digest (text-only models can read it); with
 *   `'attach'` an `image` block whose attachment id is `sha256:<hex>`, its bytes kept in `meta.attachments`.
 *   `audio` always becomes a descriptive line (Bridle has no audio block).
 * - `structuredContent` is kept in `meta.structuredContent`; when the result has no text item at all, its JSON is
 *   also added as a text block so the model can read it.
 * - `isError: true` throws `McpToolError` code `TOOL_ERROR` whose message is the result's text, so the model reads
 *   the server's own explanation after `Error: `.
 */
export function mapCallResult(result: McpCallResult, images: ImageMode): { content: ContentBlock[]; meta?: JsonValue } {
  const content: ContentBlock[] = []
  const meta: McpResultMeta = {}
  const items = Array.isArray(result.content) ? result.content : []
  for (const item of items) {
    switch (item.type) {
      case 'text':
        content.push({ type: 'text', text: str(item.text) ?? '' })
        break
      case 'image': {
        const mediaType = str(item.mimeType) ?? 'application/octet-stream'
        const data = str(item.data) ?? ''
        if (images === 'attach') {
          const id = `sha256:${digestOf(Buffer.from(data, 'base64'))}`
          meta.attachments = { ...meta.attachments, [id]: { mediaType, data } }
          content.push({ type: 'image', attachment: { id, mediaType } })
        } else {
          content.push({ type: 'text', text: describeBinary('image', mediaType, data) })
        }
        break
      }
      case 'audio':
        content.push({
          type: 'text',
          text: describeBinary('audio', str(item.mimeType) ?? 'application/octet-stream', str(item.data) ?? ''),
        })
        break
      case 'resource':
        content.push({ type: 'text', text: resourceText(item) })
        break
      case 'resource_link':
        content.push({ type: 'text', text: linkText(item) })
        break
      default:
        content.push({ type: 'text', text: `[unsupported MCP content type "${String(item.type)}"]` })
    }
  }
  const structured = result.structuredContent
  if (structured !== undefined && structured !== null) {
    meta.structuredContent = structured as JsonValue
    if (!items.some((item) => item.type === 'text')) content.push({ type: 'text', text: JSON.stringify(structured) })
  }
  if (result.isError === true) {
    const text = content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n')
    throw new McpToolError(text || 'the tool reported an error without a message', 'TOOL_ERROR')
  }
  return Object.keys(meta).length > 0 ? { content, meta: meta as JsonValue } : { content }
}
