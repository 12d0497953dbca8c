/**
 * `RequestReplay` (docs/provability.md#verifying-a-log-afterwards): the one pass behind `replayRequests`, fed one
 * event at a time. It yields, for every `request/digest`, the request rebuilt from the log before it, the digest's
 * verdict and its cache-prefix row, exactly as `replayRequests` does over the whole log; a live reader (a tracer
 * that follows `session/event`) uses it to get each row as soon as the log has settled it, without re-reading the log.
 */
import type { TokenUsage } from '@bridle/llm'
import type { AnySessionEvent, RequestDigestRecord } from '../events/events.js'
import { cachePrefixRow, usageIn, type Digested, type RowFacts } from './cache-row.js'
import { digestVerdict, errorText, type DigestVerification, type RebuildOutcome } from './digest-verdict.js'
import { LogFold } from './replay-fold.js'
import { ReplayHashes } from './replay-hashes.js'
import { RequestRebuilder } from './replay-rebuild.js'
import { incrementalFacts, trustingFacts } from './replay-row-facts.js'
import type { DigestedRequest, SettledRequest } from './replayed-request.js'

export type { DigestedRequest, ReplayedRequest, SettledRequest } from './replayed-request.js'

/** A digest whose cache row waits for the usage its step reports after it. */
interface Pending extends DigestedRequest {
  readonly outcome: RebuildOutcome
  usage: { usage: TokenUsage | undefined } | undefined
}

/**
 * The incremental replay of one log, for a log whose seqs are its indexes (every log a session wrote). Feed it the
 * log's events in order with {@link push}; each digested request settles — and gets its cache row — once the usage
 * its step reported is known (the step's `assistant/message` or usage chunk, or the next `request/digest`), or when
 * {@link settle} says the log ends here. The requests, verdicts and rows are exactly those `replayRequests` yields
 * for the same log. It keeps the log's events (the same objects), the surface and one memo of hashes: about the log's
 * own size.
 *
 * With `verify: false` it trusts the digests the log recorded: it computes no verdicts and hashes no message it need
 * not, so a request costs about what its new messages cost to serialize. A message prefix of the previous request,
 * object for object, is taken to have the chain that request recorded; the rows are those of the verifying replay for
 * any log whose digests verify (a tracer of a live session uses it; `bridle inspect --verify` does not).
 */
export class RequestReplay {
  private readonly events: AnySessionEvent[] = []
  private readonly fold = new LogFold(this.events)
  private readonly rebuilder = new RequestRebuilder(this.events, this.fold)
  private readonly hashes = new ReplayHashes()
  private readonly facts = incrementalFacts(this.events, this.hashes)
  /** The facts of the trusting replay, which answer chains from the row's baseline (`baseline`). */
  private readonly trusting: RowFacts = trustingFacts(this.facts, this.hashes, () => this.baseline)
  private baseline: Digested | undefined
  private readonly verify: boolean
  private pending: Pending | undefined
  private last: DigestedRequest | undefined
  /** The last settled conversation request: the baseline of the next row. */
  private conversation: Digested | undefined

  constructor(options: { readonly verify?: boolean } = {}) {
    this.verify = options.verify ?? true
  }

  /** How many events were folded. */
  get length(): number {
    return this.events.length
  }

  /** The request of the last `request/digest` folded (settled or not), or `undefined` before any. */
  get current(): DigestedRequest | undefined {
    return this.last
  }

  /**
   * Folds the next event of the log and returns the request it settled, if any: the pending request whose usage
   * this event reports (or, at a `request/digest`, the one before it). A `request/digest` is rebuilt and verified at
   * once ({@link current}). Throws when the event's seq is not its index in the log; nothing is folded then.
   */
  push(event: AnySessionEvent): SettledRequest | undefined {
    const d = this.events.length
    if (event.seq !== d) {
      throw new Error(
        `RequestReplay: event seq ${String(event.seq)} at index ${d}; a replay follows a whole log from seq 0`,
      )
    }
    this.events.push(event)
    let settled: SettledRequest | undefined
    if (event.type === 'request/digest') {
      if (this.pending !== undefined) settled = this.settle()
      this.pending = this.digest(event, d)
      this.last = this.pending
    } else if (this.pending !== undefined && this.pending.usage === undefined) {
      this.pending.usage = usageIn(event, this.pending.record)
      if (this.pending.usage !== undefined) settled = this.settle()
    }
    this.fold.advance()
    return settled
  }

  /**
   * Settles the pending request as if the log ended here (no usage reported after it) and returns it; `undefined`
   * when none is pending.
   */
  settle(): SettledRequest | undefined {
    const done = this.pending
    if (done === undefined) return undefined
    this.pending = undefined
    const { rebuilt, error } = done.outcome
    const curr: Digested = { seq: done.seq, record: done.record, usage: done.usage?.usage, rebuilt, error }
    // summary requests are compared with the conversation request before them, and are never a baseline themselves
    const prev = this.conversation
    if (done.record.purpose !== 'compaction') this.conversation = curr
    this.baseline = prev
    const cache = cachePrefixRow(this.verify ? this.facts : this.trusting, prev, curr)
    return {
      seq: done.seq,
      record: done.record,
      rebuilt,
      messageSeqs: done.messageSeqs,
      verification: done.verification,
      cache,
    }
  }

  private digest(event: AnySessionEvent, d: number): Pending {
    const record = event.data as RequestDigestRecord
    let outcome: RebuildOutcome
    let messageSeqs: readonly (number | undefined)[] = []
    try {
      const rebuilt = this.rebuilder.rebuild(d, record)
      outcome = { rebuilt: rebuilt.rebuilt }
      messageSeqs = rebuilt.messageSeqs
    } catch (error) {
      outcome = { error: errorText(error) }
    }
    let verification: DigestVerification | undefined
    if (this.verify) {
      const chain = outcome.rebuilt === undefined ? '' : this.hashes.extendChain(outcome.rebuilt.messages)
      verification = digestVerdict(event.seq, record, outcome, (rebuilt) => this.hashes.parts(rebuilt, chain))
    } else if (outcome.rebuilt !== undefined) this.hashes.extendChars(outcome.rebuilt.messages)
    return { seq: event.seq, record, rebuilt: outcome.rebuilt, outcome, messageSeqs, verification, usage: undefined }
  }
}
