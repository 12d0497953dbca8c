/**
 * The questions a cache row asks ({@link RowFacts}), answered over one incremental pass: from the pass's memo of
 * hashes and an index of the log's message carriers, and — for a pass that trusts the recorded digests — from the
 * previous request's recorded chain wherever this request repeats its messages.
 */
import type { Message } from '@bridle/llm'
import type { AnySessionEvent } from '../events/events.js'
import type { Digested, RowFacts } from './cache-row.js'
import { EMPTY_CHAIN, extendChain } from './digest.js'
import type { ReplayHashes } from './replay-hashes.js'

/**
 * The row facts of a replay that trusts the recorded digests: a prefix of the baseline's messages, object for object,
 * has the chain the baseline recorded; any other chain is hashed from the messages (each message hashed once per
 * replay).
 */
export function trustingFacts(facts: RowFacts, hashes: ReplayHashes, baseline: () => Digested | undefined): RowFacts {
  return {
    ...facts,
    chainAt(curr, k) {
      const messages = curr.rebuilt!.messages
      const prev = baseline()
      const before = prev?.rebuilt?.messages
      if (prev !== undefined && before !== undefined && before.length === k && sharesPrefix(messages, before, k))
        return prev.record.messages?.chain
      if (k > messages.length) return undefined
      let chain = EMPTY_CHAIN
      for (let i = 0; i < k; i++) chain = extendChain(chain, hashes.messageDigest(messages[i]!))
      return chain
    },
  }
}

/** Whether the first `k` messages of `a` are the very objects of `b`'s. */
function sharesPrefix(a: readonly Message[], b: readonly Message[], k: number): boolean {
  if (a.length < k || b.length < k) return false
  for (let i = 0; i < k; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * Row facts over the replay's memo; `eventOfMessage` reads an index of the events' data objects, built the first time
 * a row needs it (a row whose messages broke) and extended to the events folded since at each later need.
 */
export function incrementalFacts(events: readonly AnySessionEvent[], hashes: ReplayHashes): RowFacts {
  /** Indexes (ascending) of the events whose `data` or `data.message` is the key. */
  const carriers = new Map<unknown, number[]>()
  let indexed = 0
  const carry = (value: unknown, at: number) => {
    // primitives too: a malformed log's message can be a string, which `===` finds by value
    if (value === undefined) return
    const list = carriers.get(value)
    if (list === undefined) carriers.set(value, [at])
    else if (list.at(-1) !== at) list.push(at)
  }
  return {
    events,
    chainAt: (_curr, k) => hashes.chainAt(k),
    messageDigest: (message) => hashes.messageDigest(message),
    messageChars: (_curr, k) => hashes.charsAt(k),
    canonicalJson: (value) => hashes.canonicalJson(value),
    canonicalLength: (value) => hashes.canonicalLength(value),
    eventOfMessage(message, cutSeq) {
      for (; indexed < events.length; indexed++) {
        const event = events[indexed]!
        carry(event.data, indexed)
        if (typeof event.data === 'object' && event.data !== null)
          carry((event.data as { message?: unknown }).message, indexed)
      }
      const list = carriers.get(message)
      if (list === undefined) return undefined
      for (let i = list.length - 1; i >= 0; i--) if (list[i]! < cutSeq) return events[list[i]!]
      return undefined
    },
  }
}
