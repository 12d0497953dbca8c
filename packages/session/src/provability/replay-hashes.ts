/**
 * The hashing of one replay, done once per log object. A verifier must prove what was sent by recomputing it, so this
 * is independent of the live `RequestDigester`: it recomputes every digest from the log with `canonicalJson` and
 * SHA-256, but a message that appears in 800 requests is serialized and hashed once, and the chain is extended from
 * the longest run of messages the previous request shares with this one. The memo lives for one replay only, so
 * nothing can go stale between calls.
 */
import { deepFreeze, type Message } from '@bridle/llm'
import { canonicalJson, sha256Hex } from '../json/canonical.js'
import {
  assembleDigestParts,
  cacheDigest,
  configDigest,
  EMPTY_CHAIN,
  extendChain,
  systemDigest,
  toolsDigest,
  type RequestDigestParts,
} from './digest.js'
import type { EpochHeader } from '../events/events.js'
import type { ReconstructedRequest } from '../surface/reconstruct.js'

interface Serialized {
  readonly json: string
  digest: string | undefined
}

export class ReplayHashes {
  /** Canonical JSON (and, once asked, digest) of each log object: messages and tool lists. */
  private readonly serialized = new Map<unknown, Serialized>()
  /** Config, system and tools digests of each canonical header (they depend on nothing else). */
  private readonly headerDigests = new Map<EpochHeader, { config: string; system: string; tools: string }>()
  /** The messages the chain was last extended over, and `chain[i]` after the first `i` of them. */
  private chained: readonly Message[] = []
  private readonly chain: string[] = [EMPTY_CHAIN]
  /** `chars[i]`: the canonical JSON length of the first `i` of them, together. */
  private readonly chars: number[] = [0]
  /** Canonical JSON lengths of messages that were measured but not serialized (`extendChars`). */
  private readonly lengths = new WeakMap<object, number>()

  private entry(value: unknown): Serialized {
    let entry = this.serialized.get(value)
    if (entry === undefined) {
      entry = { json: canonicalJson(value), digest: undefined }
      this.serialized.set(value, entry)
      // the log's objects, frozen to the leaves once here rather than walked again by every request that holds them
      deepFreeze(value)
    }
    return entry
  }

  canonicalJson(value: unknown): string {
    return typeof value === 'object' && value !== null ? this.entry(value).json : canonicalJson(value)
  }

  messageDigest(message: Message): string {
    const entry = this.entry(message)
    return (entry.digest ??= sha256Hex(entry.json))
  }

  /** Brings the chain in line with `messages` (the last rebuilt request's) and returns its final value. */
  extendChain(messages: readonly Message[]): string {
    const same = this.sharedWithChained(messages)
    this.chain.length = same + 1
    this.chars.length = same + 1
    let last = this.chain[same]!
    let chars = this.chars[same]!
    for (let i = same; i < messages.length; i++) {
      const message = messages[i]!
      last = extendChain(last, this.messageDigest(message))
      chars += this.canonicalJson(message).length
      this.chain.push(last)
      this.chars.push(chars)
    }
    this.chained = messages
    return last
  }

  /**
   * `extendChain` without the hashing, for a replay that trusts the log's recorded digests: brings the character
   * counts in line with `messages` (serializing only the messages past the prefix the previous request shares).
   */
  extendChars(messages: readonly Message[]): void {
    const same = this.sharedWithChained(messages)
    this.chars.length = same + 1
    let chars = this.chars[same]!
    for (let i = same; i < messages.length; i++) {
      chars += this.lengthOf(messages[i]!)
      this.chars.push(chars)
    }
    this.chained = messages
  }

  /** How many leading messages `messages` shares, object for object, with those last brought in line. */
  private sharedWithChained(messages: readonly Message[]): number {
    const previous = this.chained
    const shared = Math.min(previous.length, messages.length)
    let same = 0
    while (same < shared && messages[same] === previous[same]) same++
    return same
  }

  /** The canonical JSON length of a log message: its `JSON.stringify` length (key order changes no length). */
  private lengthOf(message: Message): number {
    const known = this.serialized.get(message)
    if (known !== undefined) return known.json.length
    let length = this.lengths.get(message)
    if (length === undefined) {
      length = JSON.stringify(message).length
      this.lengths.set(message, length)
      // a live session's messages are deep-frozen already; a stored log's are frozen here, as `entry` does
      if (!Object.isFrozen(message)) deepFreeze(message)
    }
    return length
  }

  /** `messageChain(messages)[k]` for the messages the chain was last extended over. */
  chainAt(k: number): string | undefined {
    return this.chain[k]
  }

  /** The canonical JSON length of the first `k` messages the chain was last extended over. */
  charsAt(k: number): number {
    return this.chars[k]!
  }

  /** The digest parts of a rebuilt request (`requestDigestParts`), after `extendChain(rebuilt.messages)`. */
  parts(rebuilt: ReconstructedRequest, chain: string): RequestDigestParts {
    let digests = this.headerDigests.get(rebuilt.header)
    if (digests === undefined) {
      // the request without its messages: what the three digests read, including a config that names system or tools
      const request = rebuilt.request
      digests = {
        config: configDigest(request),
        system: systemDigest(request.system),
        tools: toolsDigest(request.tools),
      }
      this.headerDigests.set(rebuilt.header, digests)
    }
    const count = rebuilt.request.messages.length
    const { config, system, tools } = digests
    return assembleDigestParts(config, system, tools, chain, count, cacheDigest(rebuilt.request.cache))
  }
}
