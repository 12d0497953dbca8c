/**
 * Prompt-cache hints (docs/caching.md): where an adapter whose provider caches only at explicit breakpoints should
 * place them, decided before the request is frozen and digested, so the log records the placement and the digest
 * covers it. Providers that cache prefixes automatically ignore the hints.
 */
import type { Message } from './message.js'
import { isRecord } from './record.js'

/** How long a cache entry written at a breakpoint lives without being read. */
export type CacheTtl = '5m' | '1h'

/** Where a breakpoint ends the cached prefix (requests serialize tools, then system, then messages). */
export type CacheBreakpointPosition =
  /** After the last tool definition. */
  | { readonly at: 'tools' }
  /** After the first `offset` UTF-16 code units of the system string (0 < offset ≤ its length). */
  | { readonly at: 'system'; readonly offset: number }
  /** After content block `block` of message `index` of `messages`. */
  | { readonly at: 'message'; readonly index: number; readonly block: number }

/** One breakpoint: where, for how long, and why the policy put it there. */
export type CacheBreakpoint = CacheBreakpointPosition & {
  readonly ttl: CacheTtl
  /** Why: `tools`, `stable-system`, `context-snapshot`, `next-request`, `lookback-bridge`, … */
  readonly reason: string
  /** The policy's estimate of the prefix length in tokens up to here. */
  readonly tokens?: number
}

/** A placement decided for one request. `breakpoints` are in prefix order. */
export interface CachePlan {
  /** Which policy decided, e.g. `bridle`. */
  readonly policy: string
  readonly breakpoints: readonly CacheBreakpoint[]
  /** What the policy left out and why (a breakpoint under the minimum length, over the limit). */
  readonly skipped?: readonly { readonly reason: string; readonly detail: string }[]
}

/** One section of the system string and how often its text changed in this session so far. */
export interface CacheSectionFacts {
  readonly name: string
  /** `system.slice(start, end)` is the section's text. */
  readonly start: number
  readonly end: number
  /** Requests of this session whose header changed this section's text (0: stable so far). */
  readonly changes: number
}

/** What the loop knows, provider-neutrally, when it asks a route's adapter to place breakpoints. */
export interface CachePlanInput {
  /** The request about to be frozen. */
  readonly request: {
    readonly provider: string
    readonly model: string
    readonly system?: string
    readonly tools?: readonly { readonly name: string }[]
    readonly messages: readonly Message[]
  }
  /** The sections of `request.system`, in order (empty when the header recorded none). */
  readonly sections: readonly CacheSectionFacts[]
  /** How many requests of this session changed the tool list. */
  readonly toolChanges: number
  /** Index in `messages` of the newest runtime-context snapshot, if the history holds one. */
  readonly snapshotIndex?: number
  /** The previous conversation request of this session: its placement, its message count, ms since it was sent. */
  readonly previous?: {
    readonly plan?: CachePlan
    readonly messageCount: number
    readonly elapsedMs: number
    /**
     * Whether this request starts with all of the previous one: the same tools and system, and its messages
     * unchanged (false after a section or tool change, a compaction, or whenever the loop cannot tell).
     */
    readonly prefixHeld: boolean
  }
}

/** True when `value` has the shape of a `CachePlan` (a log reader checks before trusting it). */
export function isCachePlan(value: unknown): value is CachePlan {
  if (!isRecord(value) || typeof value.policy !== 'string' || !Array.isArray(value.breakpoints)) return false
  return (value.breakpoints as unknown[]).every(isBreakpoint)
}

const isIndex = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

function isBreakpoint(value: unknown): boolean {
  if (!isRecord(value) || (value.ttl !== '5m' && value.ttl !== '1h') || typeof value.reason !== 'string') return false
  if (value.tokens !== undefined && !isIndex(value.tokens)) return false
  if (value.at === 'tools') return true
  if (value.at === 'system') return isIndex(value.offset) && value.offset > 0
  return value.at === 'message' && isIndex(value.index) && isIndex(value.block)
}
