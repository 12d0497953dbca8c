/**
 * `verifyDigests` (docs/provability.md#verifying-a-log-afterwards): recomputes every recorded `request/digest` from the
 * log prefix before it, as an independent check of the live path (through `replayRequests`, which hashes every log
 * object afresh, once).
 */
import type { AnySessionEvent, RequestDigestRecord } from '../events/events.js'
import type { DigestVerification } from './digest-verdict.js'
import { requestSteps } from '../surface/reconstruct.js'
import { replayRequests } from './replay.js'

export type { DigestPart, DigestVerification } from './digest-verdict.js'
export { requestForDigest } from './replay-per-request.js'

/** A step that has no `request/digest` (old logs, or a stop boundary before dispatch). Not a failure. */
export interface UndigestedStep {
  readonly turn: number
  readonly step: number
  readonly stepStartSeq: number
}

/**
 * For every `request/digest` at seq `d`, rebuilds the request from `events[0..d)` (the whole prefix for
 * `attempt > 1`), recomputes the part digests with no cache shared with the live path, and compares. One result per
 * digest, in log order. Steps without a digest are not failures; list them with {@link undigestedSteps}.
 */
export function verifyDigests(events: readonly AnySessionEvent[]): DigestVerification[] {
  const results: DigestVerification[] = []
  for (const replayed of replayRequests(events)) results.push(replayed.verification)
  return results
}

/** Steps of `events` that have no `request/digest` ("no digest recorded"), in log order. */
export function undigestedSteps(events: readonly AnySessionEvent[]): UndigestedStep[] {
  const digested = new Set<string>()
  for (const event of events) {
    if (event.type === 'request/digest') {
      const record = event.data as RequestDigestRecord
      digested.add(`${record.turn}/${record.step}`)
    }
  }
  return requestSteps(events).filter((s) => !digested.has(`${s.turn}/${s.step}`))
}
