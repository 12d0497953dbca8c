/**
 * Model-view digests (docs/provability.md#comparing-requests-across-sessions): a request reduced to what the model is
 * shown, so identical requests of two sessions have identical digests. The recorded `request/digest` covers each
 * message whole — its id, minted per session, and its source, which no adapter sends — so it proves one session's
 * request but cannot compare two.
 */
import { callConfigOf, type Message } from '@bridle/llm'
import { canonicalJson, sha256Hex } from '../json/canonical.js'
import type { DigestableRequest } from '../events/model-request.js'

/** A message as the model sees it: its role and content blocks, without the id and source the log keeps. */
export interface ModelViewMessage {
  readonly role: Message['role']
  readonly content: Message['content']
}

/** The digests of a request's model view, each lowercase hex SHA-256 of canonical JSON. */
export interface ModelViewDigests {
  /** digest(config + system + tools + messages): equal exactly when every part is. */
  readonly request: string
  /** The call config: provider, model and the sampling fields that are set (as `request/digest` has it). */
  readonly config: string
  /** The system string (`''` when there is none). */
  readonly system: string
  /** The tool list in request order (`[]` when there is none). */
  readonly tools: string
  /** The list of `{role, content}` of every message, in order. */
  readonly messages: string
}

/** `message` without what only the log sees (id, source). */
export function modelViewMessage(message: Message): ModelViewMessage {
  return { role: message.role, content: message.content }
}

/**
 * The model-view digests of `request`. Ids and sources are left out; call ids inside content blocks (a tool call's
 * `id`, a result's `toolCallId`) stay, since adapters send them. An adapter's opaque replay state (`source.replayState`)
 * is left out with the source.
 */
export function modelViewDigests(request: DigestableRequest): ModelViewDigests {
  const config = sha256Hex(canonicalJson(callConfigOf(request)))
  const system = sha256Hex(request.system ?? '')
  const tools = sha256Hex(canonicalJson(request.tools ?? []))
  const messages = sha256Hex(canonicalJson(request.messages.map(modelViewMessage)))
  return { request: sha256Hex(config + system + tools + messages), config, system, tools, messages }
}
