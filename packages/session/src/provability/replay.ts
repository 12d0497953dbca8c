/**
 * `replayRequests` (docs/provability.md#verifying-a-log-afterwards): one pass over a log that yields, for every
 * `request/digest` in order, the request rebuilt from the log before it, the digest's verdict and its cache-prefix
 * row. `verifyDigests` and `cachePrefixReport` are read off it. The surface is folded once, each message hashed once
 * and the chain extended only past what the previous request shares, so a log costs about its own size rather than
 * requests × history. The pass itself is `RequestReplay` (request-replay.ts), fed the log one event at a time.
 */
import type { AnySessionEvent } from '../events/events.js'
import { replayPerRequest } from './replay-per-request.js'
import type { ReplayedRequest } from './replayed-request.js'
import { RequestReplay } from './request-replay.js'

export type { DigestedRequest, ReplayedRequest, SettledRequest } from './replayed-request.js'

/** Whether every event's seq is its index, as in every log a session wrote. */
const indexedBySeq = (events: readonly AnySessionEvent[]): boolean => events.every((event, i) => event.seq === i)

/**
 * For every `request/digest` of `events`, in log order: the request rebuilt as `reconstructRequest` rebuilds it from
 * the log before the digest (the whole prefix for `attempt > 1`), its `verifyDigests` result and its
 * `cachePrefixReport` row — exactly what those functions return, in one pass. Each request is yielded once the usage
 * its step reported is known (its step's `assistant/message` or usage chunk, the next digest, or the log's end), and
 * the replay holds only the requests a row still needs, so a caller that keeps what it needs of each holds no more.
 * The rebuilt requests are deep-frozen and share the log's message objects; the log's own objects are frozen as they
 * are reached.
 */
export function* replayRequests(events: readonly AnySessionEvent[]): Generator<ReplayedRequest, void, undefined> {
  // a log whose seqs are not its indexes (never one a session wrote) is rebuilt request by request, as before
  if (!indexedBySeq(events)) return yield* replayPerRequest(events)
  // a verifying replay settles requests with their verdicts
  const replay = new RequestReplay()
  for (const event of events) {
    const settled = replay.push(event)
    if (settled !== undefined) yield settled as ReplayedRequest
  }
  const last = replay.settle()
  if (last !== undefined) yield last as ReplayedRequest
}
