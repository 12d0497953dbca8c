import { createHash } from 'node:crypto'
import type { GenerateOptions, Message } from '@bridle/llm'
import { canonicalJson } from '@bridle/session'

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

const EMPTY = sha256('')

/** Each frozen message is hashed once in the process; messages are shared between requests. */
const messageDigests = new WeakMap<object, string>()

function messageDigest(message: Message): string {
  let d = messageDigests.get(message)
  if (d === undefined) {
    d = sha256(canonicalJson(message))
    messageDigests.set(message, d)
  }
  return d
}

/** Payload of `request/digest` minus the step coordinates (`provability.md` §2). */
export interface RequestDigestParts {
  algorithm: 'sha256'
  request: string
  config: string
  system: string
  tools: string
  messages: { count: number; chain: string }
}

/**
 * The rolling message-chain hash of one agent's requests. `chain_0 = sha256('')`,
 * `chain_i = sha256(chain_{i-1} + sha256(canonicalJson(message_i)))`. While history only grows, a new
 * request costs O(new messages); after a surface replace the chain is recomputed from the first
 * message that differs.
 */
export class MessageChain {
  #messages: readonly Message[] = []
  #chains: string[] = [EMPTY]
  #generation = -1

  /** Chain value over `messages`; `generation` is the surface replace generation they were derived at. */
  extend(messages: readonly Message[], generation: number): { count: number; chain: string } {
    const prev = this.#messages
    let same = 0
    const last = prev.length - 1
    if (generation === this.#generation && messages.length >= prev.length && (last < 0 || messages[last] === prev[last])) {
      same = prev.length
    } else {
      const max = Math.min(prev.length, messages.length)
      while (same < max && messages[same] === prev[same]) same++
    }
    this.#chains.length = same + 1
    for (let i = same; i < messages.length; i++) {
      this.#chains.push(sha256(this.#chains[i]! + messageDigest(messages[i]!)))
    }
    this.#messages = messages
    this.#generation = generation
    return { count: messages.length, chain: this.#chains[messages.length]! }
  }
}

/** Canonical JSON of the six call-config fields of `r` (undefined ones omitted). */
export function configOf(r: Pick<GenerateOptions, 'provider' | 'model' | 'reasoningEffort' | 'temperature' | 'maxTokens' | 'stop'>) {
  const config: Record<string, unknown> = { provider: r.provider, model: r.model }
  if (r.reasoningEffort !== undefined) config.reasoningEffort = r.reasoningEffort
  if (r.temperature !== undefined) config.temperature = r.temperature
  if (r.maxTokens !== undefined) config.maxTokens = r.maxTokens
  if (r.stop !== undefined) config.stop = r.stop
  return config
}

/**
 * Digests one frozen loop request (`provability.md` §1). Header parts are recomputed only when the
 * header object changed; the message chain is extended incrementally.
 */
export class RequestDigester {
  readonly #chain = new MessageChain()
  #header: { key: unknown; config: string; system: string; tools: string } | undefined

  digest(request: GenerateOptions, headerKey: unknown, generation: number): RequestDigestParts {
    if (this.#header?.key !== headerKey || headerKey === undefined) {
      this.#header = {
        key: headerKey,
        config: sha256(canonicalJson(configOf(request))),
        system: sha256(request.system ?? ''),
        tools: sha256(canonicalJson(request.tools ?? [])),
      }
    }
    const { config, system, tools } = this.#header
    const messages = this.#chain.extend(request.messages, generation)
    const requestDigest = sha256(config + system + tools + messages.chain + ':' + messages.count)
    return { algorithm: 'sha256', request: requestDigest, config, system, tools, messages }
  }
}
