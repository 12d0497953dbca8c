/** What the log replay yields per digested request (docs/provability.md#verifying-a-log-afterwards). */
import type { RequestDigestRecord } from '../events/events.js'
import type { CachePrefixRow } from './cache-types.js'
import type { DigestVerification } from './digest-verdict.js'
import type { ReconstructedRequest } from '../surface/reconstruct.js'

/** A digested request as soon as its `request/digest` is folded: everything but its cache row. */
export interface DigestedRequest {
  /** Seq of its `request/digest`. */
  readonly seq: number
  readonly record: RequestDigestRecord
  /** The request rebuilt from the log before the digest; `undefined` when the log cannot rebuild it. */
  readonly rebuilt: ReconstructedRequest | undefined
  /**
   * For each message of `rebuilt`, the seq of the surface event it is the projection of (`undefined` for a summary
   * request's instruction, which no surface event carries); empty when `rebuilt` is `undefined`.
   */
  readonly messageSeqs: readonly (number | undefined)[]
  /** Its `verifyDigests` result; `undefined` from a replay that trusts the recorded digests (`verify: false`). */
  readonly verification: DigestVerification | undefined
}

/** A digested request with its cache-prefix row, as {@link RequestReplay} settles it. */
export interface SettledRequest extends DigestedRequest {
  /** Its `cachePrefixReport` row. */
  readonly cache: CachePrefixRow
}

/** One digested request of a log, as `replayRequests` yields it: verified. */
export interface ReplayedRequest extends SettledRequest {
  readonly verification: DigestVerification
}
