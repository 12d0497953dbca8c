/**
 * `verifyDigests` (docs/provability.md#verifying-a-log-afterwards): recomputes every recorded `request/digest` from the
 * log prefix before it, from scratch, as an independent check of the live path.
 */
import type { AnySessionEvent, RequestDigestRecord } from './events.js'
import { requestDigestParts } from './digest.js'
import { reconstructRequest, requestSteps, type ReconstructedRequest } from './reconstruct.js'

export type DigestPart = 'config' | 'system' | 'tools' | 'messages' | 'request'

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

/** A step that has no `request/digest` (old logs, or a stop boundary before dispatch). Not a failure. */
export interface UndigestedStep {
  readonly turn: number
  readonly step: number
  readonly stepStartSeq: number
}

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

/**
 * For every `request/digest` at seq `d`, rebuilds the request from `events[0..d)` (the whole prefix for
 * `attempt > 1`), recomputes the part digests with no cache, and compares. One result per digest, in log order.
 * Steps without a digest are not failures; list them with {@link undigestedSteps}.
 */
export function verifyDigests(events: readonly AnySessionEvent[]): DigestVerification[] {
  const results: DigestVerification[] = []
  for (const event of events) {
    if (event.type !== 'request/digest') continue
    const record = event.data as RequestDigestRecord
    const base = {
      turn: record.turn,
      step: record.step,
      attempt: record.attempt,
      seq: event.seq,
      ...(record.purpose === 'compaction' ? { purpose: 'compaction' as const } : {}),
    }
    let rebuilt: ReconstructedRequest
    try {
      rebuilt = requestForDigest(events, event.seq, record)
    } catch (error) {
      results.push({
        ...base,
        ok: false,
        mismatched: ALL_PARTS,
        error: error instanceof Error ? error.message : String(error),
      })
      continue
    }
    if ((rebuilt.purpose === 'compaction') !== (record.purpose === 'compaction')) {
      // A digest that claims to be (or not to be) a summary request while the log says otherwise proves nothing.
      const error =
        record.purpose === 'compaction'
          ? `the digest is marked as a compaction request but turn ${record.turn} step ${record.step} has no request/compaction record`
          : `turn ${record.turn} step ${record.step} made a compaction request but its digest is not marked as one`
      results.push({ ...base, ok: false, mismatched: ALL_PARTS, error })
      continue
    }
    const parts = requestDigestParts(rebuilt.request)
    const mismatched: DigestPart[] = []
    if (parts.config !== record.config) mismatched.push('config')
    if (parts.system !== record.system) mismatched.push('system')
    if (parts.tools !== record.tools) mismatched.push('tools')
    if (parts.messages.count !== record.messages?.count || parts.messages.chain !== record.messages?.chain)
      mismatched.push('messages')
    if (parts.request !== record.request) mismatched.push('request')
    results.push({ ...base, ok: mismatched.length === 0, mismatched })
  }
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
