/**
 * Messages: immutable values with an id minted exactly once. Every constructor validates the structure
 * (throwing `TypeError`, never `LlmError`) and returns a deep-frozen object, so messages are already
 * frozen when a request that carries them is frozen later.
 */
import { randomUUID } from 'node:crypto'
import type { CallId, JsonValue, MessageId } from './ids.js'
import type { ContentBlock, ToolResultBlock } from './content.js'
import {
  assertMessageSource,
  type MessageSource,
  type ModelSource,
  type ToolSource,
  type UserSource,
} from './source.js'
import { deepFreeze, isDeepFrozen } from './freeze.js'
import { describeJsonLimitViolation, JsonLimitError, jsonLimitViolation, MESSAGE_JSON_LIMITS } from './json-limits.js'
import { isRecord } from './record.js'

export type MessageRole = 'system' | 'user' | 'assistant'

export interface Message {
  readonly id: MessageId
  readonly role: MessageRole
  readonly content: readonly ContentBlock[]
  readonly source: MessageSource
}

export interface UserMessage extends Message {
  readonly role: 'user'
}

export interface AssistantMessage extends Message {
  readonly role: 'assistant'
  readonly source: ModelSource
}

/** A tool result travels as a user-role message holding exactly one `tool-result` block. */
export interface ToolResultMessage extends Message {
  readonly role: 'user'
  readonly content: readonly [ToolResultBlock]
  readonly source: ToolSource
}

const ROLES: readonly string[] = ['system', 'user', 'assistant']

function requireString(block: Record<string, unknown>, field: string, where: string): void {
  if (typeof block[field] !== 'string') throw new TypeError(`${where}.${field} must be a string`)
}

/**
 * Checks content blocks' structure, throwing `TypeError` naming the bad block. Known block types are
 * checked field by field (nested `tool-result` content too); types added by declaration merging only need
 * a non-empty string `type`.
 */
export function assertContentBlocks(content: unknown, where = 'content'): asserts content is ContentBlock[] {
  if (!Array.isArray(content)) throw new TypeError(`${where} must be an array of content blocks`)
  content.forEach((block: unknown, i) => {
    const at = `${where}[${i}]`
    if (!isRecord(block)) throw new TypeError(`${at} must be an object`)
    if (typeof block.type !== 'string' || block.type === '')
      throw new TypeError(`${at}.type must be a non-empty string`)
    switch (block.type) {
      case 'text':
      case 'reasoning':
        requireString(block, 'text', at)
        break
      case 'tool-call':
        requireString(block, 'id', at)
        requireString(block, 'name', at)
        requireString(block, 'arguments', at)
        break
      case 'image': {
        const ref = block.attachment
        if (!isRecord(ref) || typeof ref.id !== 'string' || ref.id === '' || typeof ref.mediaType !== 'string')
          throw new TypeError(`${at}.attachment must be {id: string, mediaType: string}`)
        break
      }
      case 'tool-result':
        if (typeof block.toolCallId !== 'string' || block.toolCallId === '')
          throw new TypeError(`${at}.toolCallId must be a non-empty string`)
        if (block.isError !== undefined && block.isError !== true)
          throw new TypeError(`${at}.isError must be true when present`)
        assertContentBlocks(block.content, `${at}.content`)
        break
      default:
        break
    }
  })
}

/** Copies caller data so freezing never reaches into the caller's objects; pre-frozen data is reused. */
function owned<T>(value: T, where: string): T {
  if (isDeepFrozen(value)) return value
  try {
    return structuredClone(value)
  } catch (error) {
    throw new TypeError(`${where} must be plain JSON-like data`, { cause: error })
  }
}

/**
 * Refuses a message that breaks {@link MESSAGE_JSON_LIMITS} (the session-wide JSON limit less the room its event
 * needs), before anything recursive (the content check, `structuredClone`) walks it. `TypeError` naming the limit
 * and where; its `cause` is the `JsonLimitError`.
 */
function assertWithinLimits(id: string, role: unknown, content: unknown, source: unknown): void {
  const violation = jsonLimitViolation({ id, role, content, source }, MESSAGE_JSON_LIMITS)
  if (violation === undefined) return
  throw new TypeError(`message ${describeJsonLimitViolation(violation)}`, {
    cause: new JsonLimitError('message', violation),
  })
}

function build(id: string, role: unknown, content: unknown, source: unknown): Message {
  if (typeof role !== 'string' || !ROLES.includes(role))
    throw new TypeError(`message role must be one of ${ROLES.join(', ')} (got ${JSON.stringify(role)})`)
  assertWithinLimits(id, role, content, source)
  assertContentBlocks(content, 'message content')
  assertMessageSource(source)
  return deepFreeze({
    id: id as MessageId,
    role,
    content: owned(content, 'message content'),
    source: owned(source, 'message source'),
  }) as Message
}

/** Creates a message with a freshly minted UUID id. Returns a deep-frozen value; throws `TypeError` on bad input. */
export function createMessage(init: {
  role: MessageRole
  content: readonly ContentBlock[]
  source: MessageSource
}): Message {
  if (!isRecord(init)) throw new TypeError('createMessage expects {role, content, source}')
  return build(randomUUID(), init.role, init.content, init.source)
}

function toBlocks(content: readonly ContentBlock[] | string): readonly ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content
}

/** Creates a user message; a string becomes one `text` block. The source defaults to `{kind:'user'}`. */
export function createUserMessage(
  content: readonly ContentBlock[] | string,
  source: MessageSource = { kind: 'user' } satisfies UserSource,
): UserMessage {
  return build(randomUUID(), 'user', toBlocks(content), source) as UserMessage
}

/** Creates an assistant message; forces role `assistant` and source kind `model`. */
export function createAssistantMessage(init: {
  content: readonly ContentBlock[]
  source: { provider: string; model: string; replayState?: JsonValue }
}): AssistantMessage {
  if (!isRecord(init) || !isRecord(init.source)) throw new TypeError('createAssistantMessage expects {content, source}')
  const { provider, model, replayState } = init.source
  const source: ModelSource = { kind: 'model', provider: provider as string, model: model as string }
  if (replayState !== undefined) source.replayState = replayState as JsonValue
  return build(randomUUID(), 'assistant', init.content, source) as AssistantMessage
}

/** Creates a tool-result message: a user-role message with exactly one `tool-result` block. */
export function createToolResultMessage(init: {
  callId: CallId
  content: readonly ContentBlock[] | string
  isError?: boolean
}): ToolResultMessage {
  if (!isRecord(init)) throw new TypeError('createToolResultMessage expects {callId, content, isError?}')
  const { callId, isError } = init
  if (typeof callId !== 'string' || callId === '') throw new TypeError('tool result callId must be a non-empty string')
  const inner = toBlocks(init.content)
  const id = randomUUID()
  // Checked as the message it becomes (the tool-result block wraps the content), before the content check recurses.
  const source = { kind: 'tool', callId }
  assertWithinLimits(id, 'user', [{ type: 'tool-result', toolCallId: callId, content: inner }], source)
  assertContentBlocks(inner, 'tool result content')
  const content = owned(inner as ContentBlock[], 'tool result content')
  const block: ToolResultBlock = { type: 'tool-result', toolCallId: callId, content }
  if (isError === true) block.isError = true
  return build(id, 'user', [block], source) as ToolResultMessage
}

/**
 * Imports an existing message (JSONL load, compaction rewrite) keeping `value.id`: validates its shape,
 * clones it and deep-freezes the copy. A missing, empty or non-string id throws `TypeError`.
 */
export function freezeMessage<M extends Message = Message>(value: unknown): M {
  if (!isRecord(value)) throw new TypeError('freezeMessage expects a message object')
  const id = value.id
  if (typeof id !== 'string' || id.trim() === '') throw new TypeError('message id must be a non-empty string')
  return build(id, value.role, value.content, value.source) as M
}

/**
 * Whether `value` is an identified user-role message: an object with a non-empty string `id`, role `user` and a
 * content array. The one shape check for user messages handed over by plugins (inbox entries, messages a pre-step
 * enters, contexts a tool defers); each caller phrases its own error.
 */
export function isIdentifiedUserMessage(value: unknown): value is UserMessage {
  if (!isRecord(value)) return false
  return typeof value.id === 'string' && value.id.length > 0 && value.role === 'user' && Array.isArray(value.content)
}
