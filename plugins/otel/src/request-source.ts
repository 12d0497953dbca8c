/**
 * Where a session's model requests come from for its `chat` spans: the session's own log, folded by `@bridle/session`.
 * With message contents off (the default) a span needs each request's outline — its header, sections, config — and
 * its cache-prefix row, which `RequestFacts` gives without listing the request's messages; with contents on it needs
 * the messages too, and `RequestReplay` rebuilds every request whole. Both trust the digests the log recorded, and
 * both give the same outlines and rows (a property test in `@bridle/session` holds them to it).
 */
import type { Message } from '@bridle/llm'
import {
  RequestFacts,
  RequestReplay,
  type AnySessionEvent,
  type CachePrefixRow,
  type RequestDigestRecord,
  type RequestOutline,
} from '@bridle/session'

/** A model request as its `chat` span reads it. */
export interface ChatRequest {
  /** Seq of its `request/digest`. */
  readonly seq: number
  readonly record: RequestDigestRecord
  /** What the log says the request was, but its messages; `undefined` when the log cannot rebuild it. */
  readonly outline: RequestOutline | undefined
  /** Its messages, when contents are captured. */
  readonly messages?: readonly Message[]
}

/** A request whose cache-prefix row the log has settled. */
export interface SettledRow {
  readonly seq: number
  readonly cache: CachePrefixRow
}

export interface RequestSource {
  /** Folds the next event of the log; returns the request it settled, if any. */
  push(event: AnySessionEvent): SettledRow | undefined
  /** Settles the pending request as if the log ended here. */
  settle(): SettledRow | undefined
  /** The request of the last `request/digest` folded. */
  readonly current: ChatRequest | undefined
}

/** The requests of one session's log, with their messages only when `content` asks for them. */
export function requestSource(content: boolean): RequestSource {
  return content ? new RebuiltRequests() : new RequestFacts()
}

/** Every request rebuilt whole, messages included. */
class RebuiltRequests implements RequestSource {
  private readonly replay = new RequestReplay({ verify: false })
  private last: ChatRequest | undefined

  push(event: AnySessionEvent): SettledRow | undefined {
    const settled = this.replay.push(event)
    const current = this.replay.current
    if (current !== undefined && current.seq !== this.last?.seq) {
      const { seq, record, rebuilt } = current
      this.last = { seq, record, outline: rebuilt, ...(rebuilt !== undefined ? { messages: rebuilt.messages } : {}) }
    }
    return settled
  }

  settle(): SettledRow | undefined {
    return this.replay.settle()
  }

  get current(): ChatRequest | undefined {
    return this.last
  }
}
