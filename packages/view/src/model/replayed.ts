import {
  replayRequests,
  type AnySessionEvent,
  type CachePrefixRow,
  type DigestVerification,
  type ReconstructedRequest,
  type ReplayedRequest,
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

/** What the session page shows of every digested request, by the seq of its `request/digest`. */
export interface SessionFacts {
  verifications: DigestVerification[]
  facts: Map<number, RequestFacts>
}

/**
 * Folds replayed requests, in log order, into the session page's facts: each request's verification, cache-prefix
 * row, prompt share kept and break cause. Only the previous listed request is held to compare with.
 */
export class RequestFactsFold implements SessionFacts {
  readonly verifications: DigestVerification[] = []
  readonly facts = new Map<number, RequestFacts>()
  private readonly listed: Set<number>
  private previous: ReconstructedRequest | undefined

  constructor(private readonly events: readonly AnySessionEvent[]) {
    this.listed = listedDigests(events)
  }

  add({ seq, rebuilt, verification, cache }: ReplayedRequest): void {
    this.verifications.push(verification)
    if (!this.listed.has(seq)) {
      this.facts.set(seq, { verification, cache })
      return
    }
    const previous = this.previous
    const share = rebuilt && previous ? prefixShare(previous, rebuilt) : undefined
    const cause = breakCause(this.events, cache, rebuilt, previous)
    this.facts.set(seq, {
      verification,
      cache,
      ...(share !== undefined ? { prefixShare: share } : {}),
      ...(cause !== undefined ? { breakCause: cause } : {}),
    })
    this.previous = rebuilt
  }
}

/** The session page's facts from one replay of the log (`replayRequests`): each request is rebuilt once. */
export function requestFacts(events: readonly AnySessionEvent[]): SessionFacts {
  const fold = new RequestFactsFold(events)
  for (const replayed of replayRequests(events)) fold.add(replayed)
  return fold
}
