/**
 * The per-request replay: every digest's request rebuilt on its own from the log prefix before it, every digest and
 * chain recomputed from scratch. `replayRequests` takes this path for a log whose seqs are not its indexes (the
 * prefixes then depend on the seqs in ways one pass cannot follow); the tests hold the incremental pass to it.
 */
import type { TokenUsage } from '@bridle/llm'
import type { AnySessionEvent, RequestDigestRecord } from '../events/events.js'
import { cachePrefixRow, usageIn, type Digested, type RowFacts } from './cache-row.js'
import { canonicalJson } from '../json/canonical.js'
import { deriveEventMessage } from '../surface/derive.js'
import { messageChain, messageDigest, requestDigestParts } from './digest.js'
import { digestVerdict, errorText, type RebuildOutcome } from './digest-verdict.js'
import { reconstructRequest, type ReconstructedRequest } from '../surface/reconstruct.js'
import type { ReplayedRequest } from './replayed-request.js'
import { foldSurface } from '../surface/surface.js'

/** Rebuilds the request a digest at `seq` describes: `reconstructRequest` over `events[0..seq)`. */
export function requestForDigest(
  events: readonly AnySessionEvent[],
  seq: number,
  record: RequestDigestRecord,
): ReconstructedRequest {
  const prefix = events.slice(0, seq)
  return record.attempt > 1
    ? reconstructRequest(prefix)
    : reconstructRequest(prefix, { turn: record.turn, step: record.step })
}

/** The usage reported for the request digested at `seq`, scanning from the index after it to the next digest. */
function reportedUsage(
  events: readonly AnySessionEvent[],
  seq: number,
  record: RequestDigestRecord,
): TokenUsage | undefined {
  for (let i = seq + 1; i < events.length; i++) {
    const found = usageIn(events[i]!, record)
    if (found !== undefined) return found.usage
  }
  return undefined
}

/** The seqs of the surface events `rebuilt`'s messages came from, folded from its prefix. */
function messageSeqsOf(events: readonly AnySessionEvent[], rebuilt: ReconstructedRequest): (number | undefined)[] {
  const prefix = events.slice(0, rebuilt.cutSeq)
  const seqs: (number | undefined)[] = []
  for (const seq of foldSurface(prefix).nodes) if (deriveEventMessage(prefix[seq]!) !== null) seqs.push(seq)
  if (rebuilt.compaction === undefined) return seqs
  const count = rebuilt.messages.length - 1
  return [...seqs.slice(0, count), undefined]
}

const scratchFacts = (events: readonly AnySessionEvent[]): RowFacts => ({
  events,
  chainAt: (curr, k) => messageChain(curr.rebuilt!.messages)[k],
  messageDigest,
  messageChars(curr, k) {
    let chars = 0
    for (let i = 0; i < k; i++) chars += canonicalJson(curr.rebuilt!.messages[i]).length
    return chars
  },
  canonicalJson,
  canonicalLength: (value) => canonicalJson(value).length,
  eventOfMessage(message, cutSeq) {
    for (let i = cutSeq - 1; i >= 0; i--) {
      const e = events[i]!
      const data = e.data as { message?: unknown } | null
      if (e.data === message || data?.message === message) return e
    }
    return undefined
  },
})

/** {@link replayRequests} computed request by request, from scratch. */
export function* replayPerRequest(events: readonly AnySessionEvent[]): Generator<ReplayedRequest, void, undefined> {
  const facts = scratchFacts(events)
  let conversation: Digested | undefined
  for (const event of events) {
    if (event.type !== 'request/digest') continue
    const record = event.data as RequestDigestRecord
    const usage = reportedUsage(events, event.seq, record)
    let outcome: RebuildOutcome
    try {
      outcome = { rebuilt: requestForDigest(events, event.seq, record) }
    } catch (error) {
      outcome = { error: errorText(error) }
    }
    const { rebuilt, error } = outcome
    const verification = digestVerdict(event.seq, record, outcome, (r) => requestDigestParts(r.request))
    const curr: Digested = { seq: event.seq, record, usage, rebuilt, error }
    const prev = conversation
    if (record.purpose !== 'compaction') conversation = curr
    const cache = cachePrefixRow(facts, prev, curr)
    const messageSeqs = rebuilt === undefined ? [] : messageSeqsOf(events, rebuilt)
    yield { seq: event.seq, record, rebuilt, messageSeqs, verification, cache }
  }
}
