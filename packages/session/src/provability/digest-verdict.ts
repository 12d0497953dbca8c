/**
 * The verdict on one recorded `request/digest` given the request the log rebuilds for it: shared by the incremental
 * replay and the per-request path, so both word every failure the same way.
 */
import type { RequestDigestRecord } from '../events/events.js'
import type { RequestDigestParts } from './digest.js'
import type { ReconstructedRequest } from '../surface/reconstruct.js'

export type DigestPart = 'config' | 'system' | 'tools' | 'messages' | 'cache' | 'request'

const ALL_PARTS: readonly DigestPart[] = ['config', 'system', 'tools', 'messages', 'request']

export interface DigestVerification {
  readonly turn: number
  readonly step: number
  readonly attempt: number
  /** Seq of the `request/digest` event. */
  readonly seq: number
  /** `'compaction'` for a summary request; absent for a conversation request. */
  readonly purpose?: 'compaction'
  readonly ok: boolean
  readonly mismatched: readonly DigestPart[]
  /** Why the request could not be rebuilt at all (then every part is mismatched). */
  readonly error?: string
}

/** What rebuilding a digest's request gave: the request, or why it could not be rebuilt. */
export type RebuildOutcome =
  | { readonly rebuilt: ReconstructedRequest; readonly error?: undefined }
  | { readonly rebuilt?: undefined; readonly error: string }

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * Compares the digest recorded at `seq` with the parts recomputed from the rebuilt request. `parts` is called only
 * when the request was rebuilt and its purpose matches the record's.
 */
export function digestVerdict(
  seq: number,
  record: RequestDigestRecord,
  outcome: RebuildOutcome,
  parts: (rebuilt: ReconstructedRequest) => RequestDigestParts,
): DigestVerification {
  const base = {
    turn: record.turn,
    step: record.step,
    attempt: record.attempt,
    seq,
    ...(record.purpose === 'compaction' ? { purpose: 'compaction' as const } : {}),
  }
  const { rebuilt } = outcome
  if (rebuilt === undefined) return { ...base, ok: false, mismatched: ALL_PARTS, error: outcome.error }
  if ((rebuilt.purpose === 'compaction') !== (record.purpose === 'compaction')) {
    // A digest that claims to be (or not to be) a summary request while the log says otherwise proves nothing.
    const error =
      record.purpose === 'compaction'
        ? `the digest is marked as a compaction request but turn ${record.turn} step ${record.step} has no request/compaction record`
        : `turn ${record.turn} step ${record.step} made a compaction request but its digest is not marked as one`
    return { ...base, ok: false, mismatched: ALL_PARTS, error }
  }
  const recomputed = parts(rebuilt)
  const mismatched: DigestPart[] = []
  if (recomputed.config !== record.config) mismatched.push('config')
  if (recomputed.system !== record.system) mismatched.push('system')
  if (recomputed.tools !== record.tools) mismatched.push('tools')
  if (recomputed.messages.count !== record.messages?.count || recomputed.messages.chain !== record.messages?.chain)
    mismatched.push('messages')
  if (recomputed.cache !== record.cache) mismatched.push('cache')
  if (recomputed.request !== record.request) mismatched.push('request')
  return { ...base, ok: mismatched.length === 0, mismatched }
}
