/**
 * The predicted cache read of a request whose adapter placed explicit breakpoints (`request/cache`, docs/caching.md):
 * from the log alone, which prefix written at a breakpoint of the previous request this one still shares, whether it
 * outlived its TTL and whether a breakpoint of this request reaches it — and, when less than the previous request's
 * cached prefix comes back, why.
 */
import type { CacheBreakpoint, CachePlan, Message } from '@bridle/llm'
import type { CacheMissCause, CachePredictionRow } from './cache-types.js'

/** How far back from a breakpoint the provider looks for an earlier cached prefix, in content blocks. */
export const CACHE_LOOKBACK_BLOCKS = 20

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const

/** What the row comparison found, and the two requests' plans and times. */
export interface PredictionInput {
  readonly plan: CachePlan
  readonly previous?: {
    readonly plan: CachePlan | undefined
    readonly elapsedMs: number
    readonly toolsKept: boolean
    /** How many leading characters of the system strings are equal. */
    readonly systemCharsKept: number
    readonly systemKept: boolean
    /** How many leading messages are equal. */
    readonly messagesKept: number
  }
  readonly messages: readonly Message[]
}

/** The prediction part of a cache-report row for a request that carried a plan. */
export function predictCacheRead(input: PredictionInput): CachePredictionRow {
  const { plan, previous } = input
  const base = {
    policy: plan.policy,
    breakpoints: plan.breakpoints,
    ...(plan.skipped === undefined || plan.skipped.length === 0 ? {} : { skipped: plan.skipped }),
  }
  const written = previous?.plan?.breakpoints ?? []
  if (previous === undefined || written.length === 0) return { ...base, predictedReadTokens: 0 }
  let best: CacheBreakpoint | undefined
  let miss: CachePredictionRow['miss']
  // the previous request's largest cached prefix: what a request that changed nothing would read
  const largest = written.reduce((a, b) => ((b.tokens ?? 0) > (a.tokens ?? 0) ? b : a))
  for (const entry of written) {
    const lost = lostBecause(entry, input, previous)
    if (lost === undefined) {
      if ((entry.tokens ?? 0) > (best?.tokens ?? -1)) best = entry
    } else if (entry === largest) miss = lost
  }
  const predictedReadTokens = best?.tokens ?? 0
  return { ...base, predictedReadTokens, ...(predictedReadTokens < (largest.tokens ?? 0) && miss ? { miss } : {}) }
}

/** Why the prefix written at `entry` is not read by this request, or `undefined` when it is. */
function lostBecause(
  entry: CacheBreakpoint,
  input: PredictionInput,
  previous: NonNullable<PredictionInput['previous']>,
): CachePredictionRow['miss'] {
  if (!previous.toolsKept) return { kind: 'tools-changed' }
  if (entry.at === 'system' && previous.systemCharsKept < entry.offset) return { kind: 'system-changed' }
  if (entry.at === 'message') {
    if (!previous.systemKept) return { kind: 'system-changed' }
    if (previous.messagesKept <= entry.index) return { kind: 'history-changed', position: entry.index }
  }
  if (previous.elapsedMs > TTL_MS[entry.ttl])
    return { kind: 'ttl-expired', ttl: entry.ttl, elapsedMs: previous.elapsedMs }
  const reach = reachOf(entry, input)
  if (reach !== undefined) return reach
  return undefined
}

/** A breakpoint of this request at or at most 20 blocks after `entry`, else the lookback miss. */
function reachOf(entry: CacheBreakpoint, input: PredictionInput): CachePredictionRow['miss'] {
  const mine = input.plan.breakpoints
  if (mine.some((b) => samePlace(b, entry))) return undefined
  if (entry.at !== 'message') return { kind: 'lookback', blocks: undefined }
  let nearest: number | undefined
  for (const b of mine) {
    if (b.at !== 'message' || b.index < entry.index) continue
    const blocks = blocksBetween(input.messages, entry, b)
    if (nearest === undefined || blocks < nearest) nearest = blocks
  }
  if (nearest !== undefined && nearest <= CACHE_LOOKBACK_BLOCKS) return undefined
  return { kind: 'lookback', blocks: nearest }
}

/** Content blocks after `from` up to and including `to` (both message breakpoints, `to` not before `from`). */
function blocksBetween(
  messages: readonly Message[],
  from: Extract<CacheBreakpoint, { at: 'message' }>,
  to: Extract<CacheBreakpoint, { at: 'message' }>,
): number {
  if (from.index === to.index) return to.block - from.block
  let blocks = (messages[from.index]?.content.length ?? 1) - 1 - from.block
  for (let i = from.index + 1; i < to.index; i++) blocks += messages[i]?.content.length ?? 1
  return blocks + to.block + 1
}

function samePlace(a: CacheBreakpoint, b: CacheBreakpoint): boolean {
  if (a.at === 'tools') return b.at === 'tools'
  if (a.at === 'system') return b.at === 'system' && a.offset === b.offset
  return b.at === 'message' && a.index === b.index && a.block === b.block
}

const count = (n: number) => n.toLocaleString('en-US')

/** `1h`, `7m 12s`, `40s`: an elapsed time for a sentence. */
function duration(ms: number): string {
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return s % 60 === 0 ? `${m}m` : `${m}m ${s % 60}s`
  return `${Math.floor(m / 60)}h ${m % 60}m`
}

/** One breakpoint for a line of text: `tools 1h`, `system ≤4,123 1h`, `message 7.2 5m`, with why it is there. */
export function describeBreakpoint(b: CacheBreakpoint): string {
  const where =
    b.at === 'tools'
      ? 'tools'
      : b.at === 'system'
        ? `system[..${count(b.offset)}]`
        : `message ${b.index + 1}.${b.block + 1}`
  return `${where} ${b.ttl} (${b.reason}${b.tokens === undefined ? '' : `, ~${count(b.tokens)} tok`})`
}

/** Why a request reads less than the previous one cached, in words. */
export function describeCacheMiss(miss: CacheMissCause): string {
  switch (miss.kind) {
    case 'tools-changed':
      return 'a tool was added, removed or changed'
    case 'system-changed':
      return 'a system section changed'
    case 'history-changed':
      return `history changed at message ${miss.position + 1}`
    case 'ttl-expired':
      return `TTL expired (${miss.ttl} TTL, ${duration(miss.elapsedMs)} since the previous request)`
    case 'lookback':
      return miss.blocks === undefined
        ? 'no breakpoint reaches the cached prefix'
        : `the cached prefix is ${miss.blocks} blocks back, past the ${CACHE_LOOKBACK_BLOCKS}-block lookback`
  }
}
