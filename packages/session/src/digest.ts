/**
 * Request digests (provability.md §1): the parts of one model request hashed so that the request the log says was
 * sent can be checked afterwards by anyone holding the log.
 */
import { CALL_CONFIG_KEYS, callConfigOf, historyBaseOf, type LlmCallConfig, type Message, type ToolSchema } from '@bridle/llm'
import { canonicalJson, sha256Hex } from './canonical.js'

/** The model-facing fields of a request that take part in its digest. */
export type DigestableRequest = LlmCallConfig & {
  readonly system?: string
  readonly tools?: readonly ToolSchema[]
  readonly messages: readonly Message[]
}

/** The digests recorded by `request/digest` (without turn/step/attempt/algorithm). */
export interface RequestDigestParts {
  readonly request: string
  readonly config: string
  readonly system: string
  readonly tools: string
  readonly messages: { readonly count: number; readonly chain: string }
}

/** `chain_0`: the digest of the empty string. */
export const EMPTY_CHAIN = sha256Hex('')

/** digest(canonicalJson({provider, model, reasoningEffort?, temperature?, maxTokens?, stop?})). */
export function configDigest(request: LlmCallConfig): string {
  return sha256Hex(canonicalJson(callConfigOf(request)))
}

/** digest(system ?? ''). */
export function systemDigest(system: string | undefined): string {
  return sha256Hex(system ?? '')
}

/** digest(canonicalJson(tools ?? [])). */
export function toolsDigest(tools: readonly ToolSchema[] | undefined): string {
  return sha256Hex(canonicalJson(tools ?? []))
}

/** digest(canonicalJson(message)), computed afresh. */
export function messageDigest(message: Message): string {
  return sha256Hex(canonicalJson(message))
}

/** `chain_i = digest(chain_{i-1} + messageDigest_i)`. */
export function extendChain(chain: string, messageDigestValue: string): string {
  return sha256Hex(chain + messageDigestValue)
}

/** digest(config + system + tools + chain + ':' + count). */
export function combineRequestDigest(config: string, system: string, tools: string, chain: string, count: number): string {
  return sha256Hex(config + system + tools + chain + ':' + String(count))
}

/** Every chain value of `messages`: index i holds `chain_i` (so index 0 is {@link EMPTY_CHAIN}). From scratch. */
export function messageChain(messages: readonly Message[]): string[] {
  const chain = [EMPTY_CHAIN]
  for (const message of messages) chain.push(extendChain(chain[chain.length - 1]!, messageDigest(message)))
  return chain
}

/** All digest parts of `request`, computed from scratch with no cache (the verifier's independent path). */
export function requestDigestParts(request: DigestableRequest): RequestDigestParts {
  const config = configDigest(request)
  const system = systemDigest(request.system)
  const tools = toolsDigest(request.tools)
  const chain = messageChain(request.messages)
  const count = request.messages.length
  const last = chain[count]!
  return { request: combineRequestDigest(config, system, tools, last, count), config, system, tools, messages: { count, chain: last } }
}

/**
 * The live path's incremental digester (one per session/agent). Each message's own digest is computed once and
 * cached against the (frozen, shared) message object; the chain is extended while the history only grows and
 * recomputed from the first changed position after a replace; config, system and tools digests are recomputed only
 * when they change. Per request this costs O(new data) hashing, plus one pointer comparison per message unless the
 * history was built by `extendHistory` from the previously digested one (the session's derivation after appends).
 *
 * A digester with nothing digested yet can start from a recorded prefix (`Session.digestedPrefix`): the chain value
 * after the first `count` messages. Only the messages after it are hashed. Should a later replace change a message
 * inside that prefix, the chain is recomputed from scratch.
 */
export class RequestDigester {
  private readonly perMessage = new WeakMap<object, string>()
  private previous: readonly Message[] = []
  /** `chain[i]` is `chain_(chainStart + i)`; positions before `chainStart` are known only through the prefix. */
  private chain: string[] = [EMPTY_CHAIN]
  private chainStart = 0
  private lastConfig: { key: string; digest: string } | undefined
  private lastSystem: { value: string | undefined; digest: string } | undefined
  private lastTools: { value: readonly ToolSchema[] | undefined; digest: string } | undefined
  /** How many message digests this digester has computed (each message at most once while it is alive). */
  messageDigestsComputed = 0

  /**
   * The digest parts of `request`. `prefix`, when given and nothing has been digested yet, is the recorded chain over
   * the first `prefix.count` messages of `request.messages` (the caller vouches that they are those messages).
   */
  digest(request: DigestableRequest, prefix?: { readonly count: number; readonly chain: string }): RequestDigestParts {
    const configKey = JSON.stringify(CALL_CONFIG_KEYS.map((key) => request[key] ?? null))
    if (this.lastConfig?.key !== configKey) this.lastConfig = { key: configKey, digest: configDigest(request) }
    if (this.lastSystem === undefined || this.lastSystem.value !== request.system) {
      this.lastSystem = { value: request.system, digest: systemDigest(request.system) }
    }
    if (this.lastTools === undefined || this.lastTools.value !== request.tools) {
      this.lastTools = { value: request.tools, digest: toolsDigest(request.tools) }
    }

    const messages = request.messages
    let same = 0
    if (this.previous.length === 0 && this.chainStart === 0 && prefix !== undefined && prefix.count <= messages.length) {
      // Continue the recorded chain: the first `count` messages are digested already.
      this.chain = [prefix.chain]
      this.chainStart = prefix.count
      same = prefix.count
    } else if (historyBaseOf(messages) === this.previous) {
      // Built by `extendHistory` from the last digested history: it starts with all of it, so only the tail is new.
      same = this.previous.length
    } else {
      const shared = Math.min(messages.length, this.previous.length)
      while (same < shared && messages[same] === this.previous[same]) same++
    }
    if (same < this.chainStart) {
      // A change inside the recorded prefix: its chain values are unknown here, so start over.
      this.chain = [EMPTY_CHAIN]
      this.chainStart = 0
      same = 0
    }
    const start = this.chainStart
    this.chain.length = same - start + 1
    for (let i = same; i < messages.length; i++) {
      this.chain.push(extendChain(this.chain[i - start]!, this.digestOf(messages[i]!)))
    }
    this.previous = messages

    const count = messages.length
    const chain = this.chain[count - start]!
    const { digest: config } = this.lastConfig
    const { digest: system } = this.lastSystem
    const { digest: tools } = this.lastTools
    return { request: combineRequestDigest(config, system, tools, chain, count), config, system, tools, messages: { count, chain } }
  }

  private digestOf(message: Message): string {
    let value = this.perMessage.get(message)
    if (value === undefined) {
      value = messageDigest(message)
      this.messageDigestsComputed++
      this.perMessage.set(message, value)
    }
    return value
  }
}
