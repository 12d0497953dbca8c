/**
 * `replayRequests` (docs/provability.md#verifying-a-log-afterwards): one pass over a log that yields, for every
 * `request/digest` in order, the request rebuilt from the log before it, the digest's verdict and its cache-prefix
 * row. `verifyDigests` and `cachePrefixReport` are read off it. The surface is folded once, each message hashed once
 * and the chain extended only past what the previous request shares, so a log costs about its own size rather than
 * requests × history.
 */
import type { TokenUsage } from '@bridle/llm'
import type { AnySessionEvent, RequestDigestRecord } from '../events/events.js'
import { cachePrefixRow, usageIn, type Digested, type RowFacts } from './cache-row.js'
import { digestVerdict, errorText, type DigestVerification, type RebuildOutcome } from './digest-verdict.js'
import { LogFold } from './replay-fold.js'
import { ReplayHashes } from './replay-hashes.js'
import { RequestRebuilder } from './replay-rebuild.js'
import { replayPerRequest } from './replay-per-request.js'
import type { ReplayedRequest } from './replayed-request.js'

export type { ReplayedRequest } from './replayed-request.js'

/** A digest whose cache row waits for the usage its step reports after it. */
interface Pending {
  readonly seq: number
  readonly record: RequestDigestRecord
  readonly outcome: RebuildOutcome
  readonly messageSeqs: readonly (number | undefined)[]
  readonly verification: DigestVerification
  usage: { usage: TokenUsage | undefined } | undefined
}

/** Whether every event's seq is its index, as in every log a session wrote. */
const indexedBySeq = (events: readonly AnySessionEvent[]): boolean => events.every((event, i) => event.seq === i)

/**
 * For every `request/digest` of `events`, in log order: the request rebuilt as `reconstructRequest` rebuilds it from
 * the log before the digest (the whole prefix for `attempt > 1`), its `verifyDigests` result and its
 * `cachePrefixReport` row — exactly what those functions return, in one pass. Each request is yielded once the usage
 * its step reported is known (at the next digest, or the log's end), and the replay holds only the requests a row still
 * needs, so a caller that keeps what it needs of each holds no more. The rebuilt requests are deep-frozen and share
 * the log's message objects; the log's own objects are frozen as they are reached.
 */
export function* replayRequests(events: readonly AnySessionEvent[]): Generator<ReplayedRequest, void, undefined> {
  // a log whose seqs are not its indexes (never one a session wrote) is rebuilt request by request, as before
  if (!indexedBySeq(events)) return yield* replayPerRequest(events)
  const fold = new LogFold(events)
  const rebuilder = new RequestRebuilder(events, fold)
  const hashes = new ReplayHashes()
  const facts = incrementalFacts(events, hashes)
  let pending: Pending | undefined
  let conversation: Digested | undefined

  const settle = (done: Pending): ReplayedRequest => {
    const { rebuilt, error } = done.outcome
    const curr: Digested = { seq: done.seq, record: done.record, usage: done.usage?.usage, rebuilt, error }
    // summary requests are compared with the conversation request before them, and are never a baseline themselves
    const prev = conversation
    if (done.record.purpose !== 'compaction') conversation = curr
    const cache = cachePrefixRow(facts, prev, curr)
    return {
      seq: done.seq,
      record: done.record,
      rebuilt,
      messageSeqs: done.messageSeqs,
      verification: done.verification,
      cache,
    }
  }

  for (let d = 0; d < events.length; d++) {
    const event = events[d]!
    if (event.type === 'request/digest') {
      if (pending !== undefined) yield settle(pending)
      const record = event.data as RequestDigestRecord
      let outcome: RebuildOutcome
      let messageSeqs: readonly (number | undefined)[] = []
      try {
        const rebuilt = rebuilder.rebuild(d, record)
        outcome = { rebuilt: rebuilt.rebuilt }
        messageSeqs = rebuilt.messageSeqs
      } catch (error) {
        outcome = { error: errorText(error) }
      }
      const chain = outcome.rebuilt === undefined ? '' : hashes.extendChain(outcome.rebuilt.messages)
      const verification = digestVerdict(event.seq, record, outcome, (rebuilt) => hashes.parts(rebuilt, chain))
      pending = { seq: event.seq, record, outcome, messageSeqs, verification, usage: undefined }
    } else if (pending !== undefined && pending.usage === undefined) {
      pending.usage = usageIn(event, pending.record)
    }
    facts.index(event, d)
    fold.advance()
  }
  if (pending !== undefined) yield settle(pending)
}

/** Row facts over the replay's memo; `eventOfMessage` reads an index of the events' data objects built as they pass. */
function incrementalFacts(
  events: readonly AnySessionEvent[],
  hashes: ReplayHashes,
): RowFacts & { index(event: AnySessionEvent, at: number): void } {
  /** Indexes (ascending) of the events whose `data` or `data.message` is the key. */
  const carriers = new Map<unknown, number[]>()
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
    eventOfMessage(message, cutSeq) {
      const list = carriers.get(message)
      if (list === undefined) return undefined
      for (let i = list.length - 1; i >= 0; i--) if (list[i]! < cutSeq) return events[list[i]!]
      return undefined
    },
    index(event, at) {
      carry(event.data, at)
      if (typeof event.data === 'object' && event.data !== null)
        carry((event.data as { message?: unknown }).message, at)
    },
  }
}
