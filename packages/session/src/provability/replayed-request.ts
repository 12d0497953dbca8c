/** What the log replay yields per digested request (docs/provability.md#verifying-a-log-afterwards). */
import type { RequestDigestRecord } from '../events/events.js'
import type { CachePrefixRow } from './cache-types.js'
import type { DigestVerification } from './digest-verdict.js'
import type { ReconstructedRequest } from '../surface/reconstruct.js'

/** One digested request of a log, as `replayRequests` yields it. */
export interface ReplayedRequest {
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
  /** Its `verifyDigests` result. */
  readonly verification: DigestVerification
  /** Its `cachePrefixReport` row. */
  readonly cache: CachePrefixRow
}
