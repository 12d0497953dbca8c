/**
 * Request digests (docs/provability.md#request-digests): the parts of one model request hashed so that the request the
 * log says was sent can be checked afterwards by anyone holding the log.
 */
import {
  type CachePlan,
  CALL_CONFIG_KEYS,
  callConfigOf,
  extendsHistory,
  type LlmCallConfig,
  type Message,
  type ToolSchema,
} from '@bridle/llm'
import { canonicalJson, sha256Hex } from '../json/canonical.js'
import { DigestColumn } from './digest-column.js'
import type { DigestableRequest } from '../events/model-request.js'

export type { DigestableRequest }

/** The digests recorded by `request/digest` (without turn/step/attempt/algorithm). */
export interface RequestDigestParts {
  readonly request: string
  readonly config: string
  readonly system: string
  readonly tools: string
  readonly messages: { readonly count: number; readonly chain: string }
  /** digest(canonicalJson(cache plan)), only for a request that carried one. */
  readonly cache?: string
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

/** digest(canonicalJson(plan)); `undefined` for a request without a cache plan. */
export function cacheDigest(plan: CachePlan | undefined): string | undefined {
  return plan === undefined ? undefined : sha256Hex(canonicalJson(plan))
}

/** digest(canonicalJson(message)), computed afresh. */
export function messageDigest(message: Message): string {
  return sha256Hex(canonicalJson(message))
}

/** `chain_i = digest(chain_{i-1} + messageDigest_i)`. */
export function extendChain(chain: string, messageDigestValue: string): string {
  return sha256Hex(chain + messageDigestValue)
}

/**
 * A request's digest parts from its four digests and message count: request = digest(config + system + tools + chain +
 * ':' + count), with `':' + cache` appended for a request that carried a cache plan (so logs without plans keep their
 * digests).
 */
export function assembleDigestParts(
  config: string,
  system: string,
  tools: string,
  chain: string,
  count: number,
  cache?: string,
): RequestDigestParts {
  const tail = cache === undefined ? '' : ':' + cache
  return {
    request: sha256Hex(config + system + tools + chain + ':' + String(count) + tail),
    config,
    system,
    tools,
    messages: { count, chain },
    ...(cache === undefined ? {} : { cache }),
  }
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
  return assembleDigestParts(config, system, tools, chain[count]!, count, cacheDigest(request.cache))
}

/**
 * The live path's incremental digester (one per session/agent). The chain is extended while the history only grows
 * and recomputed from the first changed position after a replace; a message that only moved (it followed the replaced
 * range) keeps its digest, so after a replace only the replacement is hashed. Config, system and tools digests are
 * recomputed only when they change. Per request this costs O(new data) hashing, plus one pointer comparison per
 * message unless the history is known to extend the previously digested one (`extendsHistory`: the session derives
 * histories after appends with `extendHistory`, also when other readers took histories in between).
 *
 * A digester with nothing digested yet can start from a recorded prefix (`Session.digestedPrefix`): the chain value
 * after the first `count` messages. Only the messages after it are hashed. Should a later replace change a message
 * inside that prefix, the chain is recomputed from scratch.
 *
 * State per message: its digest and the chain after it, 32 bytes each (`DigestColumn`), aligned with the positions
 * of the last digested history from `chainStart` on.
 */
export class RequestDigester {
  private previous: readonly Message[] = []
  /** Position of the first message whose digest is kept; the chain before it is known only as `chain.at(0)`. */
  private chainStart = 0
  /** `chain.at(k)` is `chain_(chainStart + k)`. */
  private readonly chain = new DigestColumn()
  /** `digests.at(k)` is the digest of message `chainStart + k` of `previous`. */
  private readonly digests = new DigestColumn()
  private lastConfig: { key: string; digest: string } | undefined
  private lastSystem: { value: string | undefined; digest: string } | undefined
  private lastTools: { value: readonly ToolSchema[] | undefined; digest: string } | undefined

  constructor() {
    this.chain.push(EMPTY_CHAIN)
  }

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

    const chain = this.extend(request.messages, prefix)
    const count = request.messages.length
    const { digest: config } = this.lastConfig
    const { digest: system } = this.lastSystem
    const { digest: tools } = this.lastTools
    return assembleDigestParts(config, system, tools, chain, count, cacheDigest(request.cache))
  }

  /** Brings the columns in line with `messages` and returns its chain value. */
  private extend(
    messages: readonly Message[],
    prefix: { readonly count: number; readonly chain: string } | undefined,
  ): string {
    const previous = this.previous
    let same = 0
    if (previous.length === 0 && this.chainStart === 0 && prefix !== undefined && prefix.count <= messages.length) {
      // Continue the recorded chain: the first `count` messages are digested already.
      this.chain.truncate(0)
      this.chain.push(prefix.chain)
      this.digests.truncate(0)
      this.chainStart = same = prefix.count
    } else if (extendsHistory(messages, previous)) {
      // Built by extending the last digested history (maybe through others): it starts with all of it, so only the tail
      // is new.
      same = previous.length
    } else {
      const shared = Math.min(messages.length, previous.length)
      while (same < shared && messages[same] === previous[same]) same++
    }
    // Messages of the old history past the first difference may reappear further on (a replace shifted them).
    const moved = same < previous.length ? this.digestsFrom(Math.max(same, this.chainStart)) : undefined
    if (same < this.chainStart) {
      // A change inside the recorded prefix: its chain values are unknown here, so start over.
      this.chainStart = same = 0
      this.chain.truncate(0)
      this.chain.push(EMPTY_CHAIN)
    }
    const start = this.chainStart
    this.chain.truncate(same - start + 1)
    this.digests.truncate(same - start)
    let last = this.chain.at(same - start)
    for (let i = same; i < messages.length; i++) {
      const message = messages[i]!
      let digest = moved?.get(message)
      if (digest === undefined) digest = messageDigest(message)
      this.digests.push(digest)
      last = extendChain(last, digest)
      this.chain.push(last)
    }
    this.previous = messages
    return last
  }

  /** The digests of `previous[from..]`, by message. */
  private digestsFrom(from: number): Map<Message, string> {
    const out = new Map<Message, string>()
    for (let i = from; i < this.previous.length; i++) out.set(this.previous[i]!, this.digests.at(i - this.chainStart))
    return out
  }
}
