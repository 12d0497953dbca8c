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
}

/** Canonical JSON of log objects, kept per object: a message is the same frozen object in every request. */
const jsonMemo = new WeakMap<object, string>()

function json(value: unknown): string {
  if (typeof value !== 'object' || value === null) return canonicalJson(value)
  let text = jsonMemo.get(value)
  if (text === undefined) jsonMemo.set(value, (text = canonicalJson(value)))
  return text
}

/** Prompt texts by rebuilt request: a request is compared once as the current and once as the previous one. */
const promptMemo = new WeakMap<ReconstructedRequest, PromptText>()

export function promptText(rebuilt: ReconstructedRequest): PromptText {
  let text = promptMemo.get(rebuilt)
  if (text !== undefined) return text
  const system = rebuilt.header.system ?? ''
  const tools = json(rebuilt.header.tools ?? [])
  const messages = rebuilt.messages.map(json)
  let chars = system.length + tools.length
  for (const m of messages) chars += m.length
  text = { system, tools, messages, chars }
  promptMemo.set(rebuilt, text)
  return text
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
