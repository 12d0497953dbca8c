import { canonicalJson, type ReconstructedRequest } from '@bridle/session'

/**
 * A request as the prompt cache sees it: the system string, then the tools as canonical JSON, then each message as
 * canonical JSON — the order providers serialize a prompt, and the measure `cachePrefixReport` counts in.
 */
export interface PromptText {
  system: string
  tools: string
  messages: string[]
  /** Total length in UTF-16 code units. */
  chars: number
  /**
   * The serialized tools and messages, shared by every request that sends them: their UTF-8 byte counts are measured
   * once, when a diff first asks (the session page's shares need only `chars`).
   */
  parts: { tools: Serialized; messages: Serialized[] }
}

export interface Serialized {
  readonly text: string
  bytes?: number
}

const bytesOf = (part: Serialized): number => (part.bytes ??= utf8Bytes(part.text))

/** Canonical JSON of log objects, kept per object: a message is the same frozen object in every request. */
const jsonMemo = new WeakMap<object, Serialized>()

function serialized(value: unknown): Serialized {
  if (typeof value !== 'object' || value === null) return { text: canonicalJson(value) }
  let done = jsonMemo.get(value)
  if (done === undefined) {
    done = { text: canonicalJson(value) }
    jsonMemo.set(value, done)
  }
  return done
}

/** Prompt texts by rebuilt request: a request is compared once as the current and once as the previous one. */
const promptMemo = new WeakMap<ReconstructedRequest, PromptText>()

export function promptText(rebuilt: ReconstructedRequest): PromptText {
  let prompt = promptMemo.get(rebuilt)
  if (prompt !== undefined) return prompt
  const system = rebuilt.header.system ?? ''
  const tools = serialized(rebuilt.header.tools ?? [])
  const parts = rebuilt.messages.map(serialized)
  const messages = parts.map((part) => part.text)
  let chars = system.length + tools.text.length
  for (const text of messages) chars += text.length
  prompt = { system, tools: tools.text, messages, chars, parts: { tools, messages: parts } }
  promptMemo.set(rebuilt, prompt)
  return prompt
}

/**
 * UTF-8 bytes of the first `chars` code units of the prompt serialized in order (system, tools, each message): whole
 * parts by their kept counts, the part the prefix ends in by its own bytes. Parts never split a surrogate pair
 * between them (JSON parts start with `[` or `{`), so this is the byte length of the joined text's prefix.
 */
export function prefixBytes(prompt: PromptText, chars: number): number {
  let seen = 0
  let bytes = 0
  const part = (text: string, size: () => number): boolean => {
    if (seen + text.length >= chars) {
      bytes += seen + text.length === chars ? size() : utf8Bytes(text.slice(0, chars - seen))
      return true
    }
    seen += text.length
    bytes += size()
    return false
  }
  const { tools, messages } = prompt.parts
  if (part(prompt.system, () => utf8Bytes(prompt.system)) || part(tools.text, () => bytesOf(tools))) return bytes
  for (const message of messages) if (part(message.text, () => bytesOf(message))) return bytes
  return bytes
}

/** UTF-8 bytes of the whole serialized prompt. */
export function promptBytes(prompt: PromptText): number {
  let bytes = utf8Bytes(prompt.system) + bytesOf(prompt.parts.tools)
  for (const message of prompt.parts.messages) bytes += bytesOf(message)
  return bytes
}

/** Length of the common prefix of two strings, in UTF-16 code units. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/** UTF-8 byte length of `text` (the unit providers and the issue speak in). */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8')
