/**
 * `RequestFacts` (docs/provability.md#the-cache-prefix-report): what a replay that trusts the recorded digests
 * (`RequestReplay({ verify: false })`) says of each request of a log — where its step was cut, the header it was built
 * under, its cache-prefix row — without listing its messages. A request whose messages only extend the previous
 * conversation request's (nothing but appends between them: every step of a plain conversation) gets its row from the
 * two headers and a running length of the history, so it costs what its own events cost rather than what the history
 * holds; any other request is rebuilt whole and compared as the replay compares it. A live reader that puts no message
 * contents anywhere (a tracer) uses it.
 */
import type { TokenUsage } from '@bridle/llm'
import type { AnySessionEvent, EpochHeader, RequestDigestRecord } from '../events/events.js'
import type { ReconstructedRequest } from '../surface/reconstruct.js'
import { modelRequestOf } from '../surface/step-cut.js'
import { cachePrefixRow, extendingRow, usageIn, type Digested, type RequestHead } from './cache-row.js'
import { errorText } from './digest-verdict.js'
import { jsonTextLength } from '../json/json-length.js'
import { LogFold, type SurfaceMessages } from './replay-fold.js'
import { ReplayHashes } from './replay-hashes.js'
import { RequestRebuilder, type Located } from './replay-rebuild.js'
import { incrementalFacts, trustingFacts } from './replay-row-facts.js'
import type { CachePrefixRow } from './cache-types.js'

/** A rebuilt request without its messages: where it was cut, its heading, and its model request's other fields. */
export type RequestOutline = Omit<ReconstructedRequest, 'context' | 'messages' | 'request'> & {
  readonly request: Omit<ReconstructedRequest['request'], 'messages'>
}

/** A digested request as {@link RequestFacts} knows it as soon as its `request/digest` is folded. */
export interface OutlinedRequest {
  /** Seq of its `request/digest`. */
  readonly seq: number
  readonly record: RequestDigestRecord
  /** `undefined` when the log cannot rebuild the request (then `error` says why). */
  readonly outline: RequestOutline | undefined
  readonly error: string | undefined
}

/** An outlined request with its cache-prefix row. */
export interface SettledOutline extends OutlinedRequest {
  readonly cache: CachePrefixRow
}

interface Entry extends OutlinedRequest {
  readonly located: Located | undefined
  readonly head: RequestHead | undefined
  /** The fold's replace count at the digest: equal counts mean only appends came between two digests. */
  readonly replaces: number
  /** The canonical JSON length of the surface's messages at the digest. */
  readonly chars: number
  /** What the search for the usage its step reported found: `undefined` while it goes on. */
  found: { usage: TokenUsage | undefined } | undefined
  /** The usage found. */
  usage: TokenUsage | undefined
  /** The surface at the cut, listed when a replace was about to change it while the entry could still be compared. */
  surface: SurfaceMessages | undefined
  /** The whole rebuilt request, once a row needed it. */
  rebuilt: ReconstructedRequest | undefined
}

/** The model request of each header without messages (every request under one header shares it). */
const requestOfHeader = new WeakMap<EpochHeader, RequestOutline['request']>()
function requestOf(header: EpochHeader): RequestOutline['request'] {
  let request = requestOfHeader.get(header)
  if (request === undefined) {
    const { messages: _, ...rest } = modelRequestOf(header, [])
    requestOfHeader.set(header, (request = Object.freeze(rest)))
  }
  return request
}

/**
 * The incremental pass over one log whose seqs are its indexes (every log a session wrote). Feed it the log's events
 * in order with {@link push}; each digested request is outlined at once ({@link current}) and settles — with exactly
 * the row `RequestReplay({ verify: false })` gives it — once the usage its step reported is known, or when
 * {@link settle} says the log ends here. Like the replay it keeps the log's events (the same objects) and the surface.
 */
export class RequestFacts {
  private readonly events: AnySessionEvent[] = []
  private readonly hashes = new ReplayHashes()
  private readonly fold = new LogFold(this.events, jsonTextLength)
  private readonly rebuilder = new RequestRebuilder(this.events, this.fold)
  private readonly trusting = trustingFacts(
    incrementalFacts(this.events, this.hashes),
    this.hashes,
    () => this.baseline,
  )
  private baseline: Digested | undefined
  private pending: Entry | undefined
  private last: Entry | undefined
  /** The last settled conversation request: the baseline of the next row. */
  private conversation: Entry | undefined
  /** What the requests under the last header outlined share. */
  private shared:
    | { readonly header: EpochHeader; readonly request: RequestOutline['request']; readonly head: RequestHead }
    | undefined

  constructor() {
    this.fold.beforeReplace = () => {
      // the requests a later row can still compare keep the messages they had
      for (const entry of [this.conversation, this.pending]) {
        if (entry?.located !== undefined && entry.located.surface === undefined)
          entry.surface ??= this.fold.messagesNow(entry.located.count)
      }
    }
  }

  /** How many events were folded. */
  get length(): number {
    return this.events.length
  }

  /** The request of the last `request/digest` folded (settled or not), or `undefined` before any. */
  get current(): OutlinedRequest | undefined {
    return this.last
  }

  /**
   * Folds the next event of the log and returns the request it settled, if any (as `RequestReplay.push` does).
   * Throws when the event's seq is not its index in the log; nothing is folded then.
   */
  push(event: AnySessionEvent): SettledOutline | undefined {
    const d = this.events.length
    if (event.seq !== d) {
      throw new Error(
        `RequestFacts: event seq ${String(event.seq)} at index ${d}; a replay follows a whole log from seq 0`,
      )
    }
    this.events.push(event)
    let settled: SettledOutline | undefined
    if (event.type === 'request/digest') {
      if (this.pending !== undefined) settled = this.settle()
      this.pending = this.outline(event, d)
      this.last = this.pending
    } else if (this.pending !== undefined && this.pending.found === undefined) {
      const found = usageIn(event, this.pending.record)
      if (found !== undefined) {
        this.pending.found = found
        this.pending.usage = found.usage
        settled = this.settle()
      }
    }
    this.fold.advance()
    return settled
  }

  /** Settles the pending request as if the log ended here; `undefined` when none is pending. */
  settle(): SettledOutline | undefined {
    const done = this.pending
    if (done === undefined) return undefined
    this.pending = undefined
    // summary requests are compared with the conversation request before them, and are never a baseline themselves
    const prev = this.conversation
    if (done.record.purpose !== 'compaction') this.conversation = done
    const cache = this.row(prev, done)
    return { seq: done.seq, record: done.record, outline: done.outline, error: done.error, cache }
  }

  private outline(event: AnySessionEvent, d: number): Entry {
    const record = event.data as RequestDigestRecord
    let located: Located | undefined
    let error: string | undefined
    try {
      located = this.rebuilder.locate(d, record)
    } catch (thrown) {
      error = errorText(thrown)
    }
    let outline: RequestOutline | undefined
    let head: RequestHead | undefined
    if (located !== undefined) {
      const { where, heading, compaction } = located
      // what every request under one header shares, made at its first: its request fields and its head, whose tools
      // are measured then (as the loop digests a header's tools once)
      let shared = this.shared
      if (shared?.header !== heading.header) {
        const request = requestOf(heading.header)
        const toolsChars = this.hashes.canonicalLength(request.tools ?? [])
        const head = { system: request.system, tools: request.tools, sections: heading.sections, toolsChars }
        this.shared = shared = { header: heading.header, request, head }
      }
      const request = shared.request
      // a rebuilt request's fields but its context and messages, in its key order (no spreads: this runs once a
      // request, mostly before the code is optimized)
      const fields: Record<string, unknown> = {
        turn: where.turn,
        step: where.step,
        stepStartSeq: where.stepStartSeq,
        cutSeq: where.cutSeq,
        outputSeq: where.outputSeq,
        header: heading.header,
        headerSeq: heading.headerSeq,
        headerReason: heading.headerReason,
        sections: heading.sections,
        request,
      }
      if (compaction !== undefined) {
        fields.purpose = 'compaction'
        fields.compaction = compaction
      }
      outline = Object.freeze(fields) as unknown as RequestOutline
      head = shared.head
    }
    return {
      seq: event.seq,
      record,
      outline,
      error,
      located,
      head,
      replaces: this.fold.replaces,
      chars: located !== undefined && located.surface === undefined ? this.fold.charsNow() : 0,
      found: undefined,
      usage: undefined,
      surface: undefined,
      rebuilt: undefined,
    }
  }

  private row(prev: Entry | undefined, curr: Entry): CachePrefixRow {
    // a request with explicit breakpoints (`request/cache`): its predicted read counts its messages, so it is rebuilt
    if (curr.record.cache !== undefined && curr.located !== undefined) {
      const c = this.digested(curr)
      this.hashes.extendChars(c.rebuilt!.messages)
      const p = prev?.located === undefined ? undefined : this.digested(prev)
      if (p !== undefined) this.baseline = p
      return cachePrefixRow(this.trusting, p, c)
    }
    if (prev === undefined || prev.located === undefined || curr.located === undefined) {
      // rows that compare no messages: nothing to rebuild
      return cachePrefixRow(this.trusting, prev && unlisted(prev), unlisted(curr))
    }
    if (extendsPrevious(prev, prev.located, curr, curr.located)) {
      return extendingRow(
        this.hashes,
        prev as Entry & { head: RequestHead },
        curr as Entry & { head: RequestHead },
        prev.chars,
      )
    }
    const p = this.digested(prev)
    const c = this.digested(curr)
    this.hashes.extendChars(c.rebuilt!.messages)
    this.baseline = p
    return cachePrefixRow(this.trusting, p, c)
  }

  /** The entry rebuilt whole, from the messages its cut had (listed before any replace since, else listed now). */
  private digested(entry: Entry): Digested {
    const located = entry.located!
    if (entry.rebuilt === undefined) {
      let surface = located.surface ?? entry.surface
      if (surface === undefined) {
        if (this.fold.replaces !== entry.replaces) throw new Error('RequestFacts: a request lost its messages')
        surface = this.fold.messagesNow(located.count)
      }
      entry.rebuilt = this.rebuilder.materialize(located, surface).rebuilt
    }
    return { seq: entry.seq, record: entry.record, usage: entry.usage, rebuilt: entry.rebuilt, error: undefined }
  }
}

/** An entry as a row that reads no messages sees it: its rebuild's error, if any. */
const unlisted = (entry: Entry): Digested => ({
  seq: entry.seq,
  record: entry.record,
  usage: entry.usage,
  error: entry.error,
})

/**
 * Whether `curr`'s messages are `prev`'s followed by more, object for object, with `prev`'s recorded count theirs:
 * both cut where the fold stood, neither a summary request, no replace between them.
 */
function extendsPrevious(prev: Entry, p: Located, curr: Entry, c: Located): boolean {
  if (p.surface !== undefined || c.surface !== undefined) return false
  if (p.compaction !== undefined || c.compaction !== undefined) return false
  if (prev.replaces !== curr.replaces) return false
  const messages = prev.record.messages as { readonly count?: unknown } | null | undefined
  return typeof messages === 'object' && messages !== null && messages.count === p.count
}
