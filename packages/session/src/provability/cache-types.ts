/** The rows of `cachePrefixReport` (docs/provability.md#the-cache-prefix-report). */
import type { CacheBreakpoint, CacheTtl } from '@bridle/llm'
import type { CompactionRequestRecord } from '../events/events.js'
import type { SectionChange } from '../events/section-manifest.js'

/** What one compaction did, as the cache report names it beside the break it caused. */
export interface CompactionBreak {
  /** The compaction step. */
  readonly turn: number
  readonly step: number
  /** Seq of its `request/compaction` record. */
  readonly requestSeq: number
  readonly reason: CompactionRequestRecord['reason']
  /** How many messages of the previous requests the checkpoint replaced. */
  readonly replacedMessages: number
  /** Provider-reported input tokens (uncached + cache read + cache write) of the request before and of this one. */
  readonly inputTokensBefore?: number
  readonly inputTokensAfter?: number
  /** `inputTokensBefore − inputTokensAfter` when both were reported (new messages of this request count against it). */
  readonly tokensSaved?: number
}

export type MessageBreakCause =
  /** A surface replace at `seq` rewrote history; `compaction` is set when a compaction step's checkpoint made it. */
  | { readonly kind: 'replace'; readonly seq: number; readonly compaction?: CompactionBreak }
  /** This row is a summary request (`request/compaction` at `seq`): the previous request's first messages, then the instruction. */
  | { readonly kind: 'compaction-request'; readonly seq: number }
  /** A runtime-context snapshot at `seq` was inserted before the tail. */
  | { readonly kind: 'context-snapshot'; readonly seq: number }
  /** The message at the break came from the event at `seq`, for no reason the log names. */
  | { readonly kind: 'changed'; readonly seq: number | undefined }

export interface CachePrefixRow {
  readonly turn: number
  readonly step: number
  readonly attempt: number
  /** Seq of this request's `request/digest`. */
  readonly seq: number
  /** `'compaction'` for a summary request; absent for a conversation request. */
  readonly purpose?: 'compaction'
  /**
   * Seq of the `request/digest` this row is compared with: the previous conversation request (summary requests are
   * skipped, since the conversation's cached prefix is what the provider kept); absent for the first request.
   */
  readonly previousSeq?: number
  readonly system?:
    | { readonly kept: true }
    | {
        readonly kept: false
        readonly firstDifferingLine: number
        readonly previousLine: string
        readonly currentLine: string
        /**
         * The sections added, removed, moved or changed, from both requests' section manifests; absent when either
         * header recorded none (a log written before manifests).
         */
        readonly sections?: readonly SectionChange[]
      }
  readonly tools?: {
    readonly kept: boolean
    readonly added: readonly string[]
    readonly removed: readonly string[]
    /** Tools in both requests whose position among those tools differs. */
    readonly moved: readonly string[]
    /** Tools in both requests whose description or parameters differ (a tool can be both moved and changed). */
    readonly changed: readonly string[]
  }
  readonly messages?:
    | { readonly kept: true }
    | { readonly kept: false; readonly firstDifferingPosition: number; readonly cause: MessageBreakCause }
  /** The longest part of this request byte-identical to a prefix of the previous one. */
  readonly prefixKept?: { readonly messages: number; readonly chars: number }
  /** Provider-reported cached input tokens for this request (`cacheReadTokens` of its usage). */
  readonly cachedInputTokens?: number
  /** Provider-reported input tokens of this request: uncached + cache read + cache write. */
  readonly inputTokens?: number
  /** Provider-reported input tokens written to the cache by this request (`cacheWriteTokens` of its usage). */
  readonly cacheWriteTokens?: number
  /** For a request whose adapter placed breakpoints (`request/cache`): where, and the read they predict. */
  readonly cachePlan?: CachePredictionRow
  /** Set when the request could not be rebuilt from the log. */
  readonly error?: string
}

/** Why a request is predicted to read less than the previous request's largest cached prefix. */
export type CacheMissCause =
  | { readonly kind: 'tools-changed' }
  | { readonly kind: 'system-changed' }
  | { readonly kind: 'history-changed'; readonly position: number }
  | { readonly kind: 'ttl-expired'; readonly ttl: CacheTtl; readonly elapsedMs: number }
  /** No breakpoint of this request is at the cached prefix or within the provider's lookback after it. */
  | { readonly kind: 'lookback'; readonly blocks: number | undefined }

/** The placement a request carried and the cache read the log predicts for it. */
export interface CachePredictionRow {
  readonly policy: string
  readonly breakpoints: readonly CacheBreakpoint[]
  /** Places the policy left out and why (under the minimum, over the limit), as the plan recorded them. */
  readonly skipped?: readonly { readonly reason: string; readonly detail: string }[]
  /** Estimated tokens of the longest prefix a breakpoint of the previous request wrote that this one reads. */
  readonly predictedReadTokens: number
  /** Why less than the previous request's largest cached prefix is read; absent when nothing was lost. */
  readonly miss?: CacheMissCause
}
