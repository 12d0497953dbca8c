import {
  replayRequests,
  type AnySessionEvent,
  type CachePrefixRow,
  type DigestVerification,
  type ReconstructedRequest,
} from '@bridle/session'
import { breakCause } from './cause.js'
import { comparePrompts } from './prefix.js'
import { promptText } from './prompt-text.js'

/** Share (0..1) of `current`'s prompt that repeats the start of `previous`'s, character for character. */
export function prefixShare(previous: ReconstructedRequest, current: ReconstructedRequest): number {
  const text = promptText(current)
  return text.chars === 0 ? 1 : comparePrompts(promptText(previous), text).keptChars / text.chars
}

/** What the session page shows of one digested request beside what the log says directly. */
export interface RequestFacts {
  readonly verification: DigestVerification
  readonly cache: CachePrefixRow
  /** Against the request of the timeline's previous request row; absent for the first, or when either fails. */
  readonly prefixShare?: number
  readonly breakCause?: string
}

/**
 * The seqs of the digests the timeline lists: those inside a step of a turn (a digest before any step has no row).
 * The timeline compares each row's prompt with the row before it, so this decides what "before" means.
 */
function listedDigests(events: readonly AnySessionEvent[]): Set<number> {
  const listed = new Set<number>()
  let turn = false
  let step = false
  for (const event of events) {
    if (event.type === 'turn/start') {
      turn = true
      step = false
    } else if (event.type === 'step/start' && turn) step = true
    else if (event.type === 'request/digest' && step) listed.add(event.seq)
  }
  return listed
}

/**
 * Every digested request's verification, cache-prefix row, prompt share kept and break cause, from one replay of the
 * log (`replayRequests`): each request is rebuilt once, and only the previous one is held to compare with.
 */
export function requestFacts(events: readonly AnySessionEvent[]): {
  verifications: DigestVerification[]
  facts: Map<number, RequestFacts>
} {
  const listed = listedDigests(events)
  const verifications: DigestVerification[] = []
  const facts = new Map<number, RequestFacts>()
  let previous: ReconstructedRequest | undefined
  for (const { seq, rebuilt, verification, cache } of replayRequests(events)) {
    verifications.push(verification)
    if (!listed.has(seq)) {
      facts.set(seq, { verification, cache })
      continue
    }
    const share = rebuilt && previous ? prefixShare(previous, rebuilt) : undefined
    const cause = breakCause(events, cache, rebuilt, previous)
    facts.set(seq, {
      verification,
      cache,
      ...(share !== undefined ? { prefixShare: share } : {}),
      ...(cause !== undefined ? { breakCause: cause } : {}),
    })
    previous = rebuilt
  }
  return { verifications, facts }
}
