/**
 * Bridle's breakpoint placement (README.md#prompt-caching, docs/caching.md). The Messages API caches a prefix only at
 * explicit `cache_control` breakpoints — at most four, each reading back at most 20 blocks, each ignored below the
 * model's minimum length — and bills a written prefix above normal input and a read one far below it. Extra
 * breakpoints cost nothing (a prefix is billed once), so the policy fills the four slots with the places later
 * requests are known to share, decided from what the session says, not from guessing over the JSON:
 *
 *   1. `next-request` — the newest block: the next request (a tool-loop step, the next turn) starts with all of it.
 *   2. `lookback-bridge` — the previous request's newest block, when more than 20 blocks arrived since (a step of
 *      parallel tool calls): the breakpoint on the newest block cannot look back that far, this one reads it exactly.
 *   3. `stable-system` — the end of the system sections that never changed in this session: when a section that did
 *      change changes again, tools and the stable sections are still read.
 *   4. `tools` — the end of the tool definitions: read even when the first system section changes.
 *   3. `checkpoint` — a place in the history cached for the long TTL and placed again on every request (so each
 *      request keeps it alive): when the user pauses longer than 5 minutes, the 5-minute entries are gone but this
 *      one is read. When the history has grown more than 15 % past it, the newest block becomes the new checkpoint.
 *   4. `stable-system` — the end of the system sections that never changed in this session: when a section that did
 *      change changes again, tools and the stable sections are still read.
 *   5. `tools` — the end of the tool definitions: read even when the first system section changes.
 *   6. `context-snapshot` — the end of the newest runtime-context snapshot, when a slot is left.
 *
 * Tools, the stable system and the checkpoint use the configured long TTL (1 hour by default: written rarely, they
 * outlive a pause); the moving message breakpoints use 5 minutes (written every request, read by the next one). The
 * API wants longer TTLs before shorter ones, so a 5-minute breakpoint before a 1-hour one is raised to 1 hour.
 */
import type { CacheBreakpoint, CachePlan, CachePlanInput, CacheTtl } from '@bridle/llm'
import { prefixLayout, type PrefixLayout } from './layout.js'

/** The API's limits this policy respects (README.md#figures-this-package-relies-on). */
export const MAX_BREAKPOINTS = 4
export const LOOKBACK_BLOCKS = 20
/** Growth of the history past the checkpoint, as a share of the prefix, that moves the checkpoint to the newest block. */
export const CHECKPOINT_GROWTH = 0.15

export interface PolicyOptions {
  /** The model's minimum cacheable prefix, in tokens. */
  readonly minTokens: number
  /** TTL of the breakpoints on tools and stable system sections. */
  readonly stableTtl: CacheTtl
}

interface Candidate {
  readonly breakpoint: CacheBreakpoint
  /** Sort key in prefix order: [area, index, block]. */
  readonly order: readonly [number, number, number]
}

/** Places up to four breakpoints for one request; `skipped` says which places were left out and why. */
export function placeBreakpoints(input: CachePlanInput, options: PolicyOptions): CachePlan {
  const layout = prefixLayout(input)
  const wanted: Candidate[] = []
  const skipped: { reason: string; detail: string }[] = []
  const offer = (candidate: Candidate | undefined) => {
    if (candidate === undefined) return
    const tokens = candidate.breakpoint.tokens ?? 0
    if (tokens < options.minTokens) {
      skipped.push({
        reason: candidate.breakpoint.reason,
        detail: `prefix ~${tokens} tokens is under the model's minimum of ${options.minTokens}`,
      })
    } else if (wanted.some((w) => sameOrder(w.order, candidate.order))) {
      skipped.push({ reason: candidate.breakpoint.reason, detail: 'same place as a breakpoint already placed' })
    } else if (wanted.length >= MAX_BREAKPOINTS) {
      skipped.push({
        reason: candidate.breakpoint.reason,
        detail: `the API takes at most ${MAX_BREAKPOINTS} breakpoints`,
      })
    } else wanted.push(candidate)
  }
  const last = layout.messageCount - 1
  const checkpoint = last >= 0 ? checkpointOf(input, layout, options.stableTtl) : { renew: false }
  if (checkpoint.note !== undefined) skipped.push({ reason: 'checkpoint', detail: checkpoint.note })
  if (last >= 0) {
    const renew = checkpoint.renew
    offer(onMessage(layout, last, renew ? 'next-request+checkpoint' : 'next-request', renew ? options.stableTtl : '5m'))
  }
  offer(checkpoint.keep)
  offer(bridge(input, layout))
  offer(stableSystem(input, layout, options.stableTtl))
  if ((input.request.tools?.length ?? 0) > 0) {
    offer({
      breakpoint: { at: 'tools', ttl: options.stableTtl, reason: 'tools', tokens: layout.toolTokens },
      order: [0, 0, 0],
    })
  }
  if (input.snapshotIndex !== undefined) offer(onMessage(layout, input.snapshotIndex, 'context-snapshot', '5m'))
  wanted.sort((a, b) => compareOrder(a.order, b.order))
  return {
    policy: 'bridle',
    breakpoints: longerFirst(wanted.map((w) => w.breakpoint)),
    ...(skipped.length === 0 ? {} : { skipped }),
  }
}

function onMessage(layout: PrefixLayout, index: number, reason: string, ttl: CacheTtl): Candidate {
  const block = layout.lastBlock(index)
  return {
    breakpoint: { at: 'message', index, block, ttl, reason, tokens: layout.tokensThrough(index) },
    order: [2, index, block],
  }
}

/**
 * The checkpoint decision: keep the previous plan's checkpoint (a `checkpoint`, or a newest block made one) alive
 * while the history has grown less than `CHECKPOINT_GROWTH` past it; else make the newest block the checkpoint —
 * unless this request brought a large part of that growth at once (its long-TTL write would bill that part at 2×:
 * keep the old one and renew on a later, smaller request, or once the growth doubled). After a change before the
 * checkpoint (a section, a tool, a compaction) there is none this request: a long-TTL write would re-bill the whole
 * prefix at 2×; the next request takes a fresh one.
 */
function checkpointOf(
  input: CachePlanInput,
  layout: PrefixLayout,
  ttl: CacheTtl,
): { keep?: Candidate; renew: boolean; note?: string } {
  const prev = input.previous
  if (prev !== undefined && !prev.prefixHeld) {
    return {
      renew: false,
      note: 'the prefix changed since the previous request: a long-TTL write now would re-bill it at 2×',
    }
  }
  const previous = prev?.plan?.breakpoints.find(
    (b) => b.at === 'message' && (b.reason === 'checkpoint' || b.reason === 'next-request+checkpoint'),
  )
  if (previous?.at !== 'message' || previous.index >= layout.messageCount) return { renew: true }
  const keep = onMessage(layout, previous.index, 'checkpoint', ttl)
  const total = layout.tokensThrough(layout.messageCount - 1)
  const growth = total - (keep.breakpoint.tokens ?? 0)
  if (growth <= CHECKPOINT_GROWTH * total) return { keep, renew: false }
  const newPart = total - layout.tokensThrough(Math.min(prev!.messageCount, layout.messageCount) - 1)
  if (newPart > growth / 2 && growth <= 2 * CHECKPOINT_GROWTH * total) return { keep, renew: false }
  return { renew: true }
}

/** The TTLs made non-increasing in prefix order, as the API requires (a 5m breakpoint before a 1h one becomes 1h). */
function longerFirst(breakpoints: CacheBreakpoint[]): CacheBreakpoint[] {
  const lastLong = breakpoints.findLastIndex((b) => b.ttl === '1h')
  return breakpoints.map((b, i) => (i < lastLong && b.ttl === '5m' ? { ...b, ttl: '1h' } : b))
}

/** The previous request's newest block, when the newest block of this one is more than 20 blocks past it. */
function bridge(input: CachePlanInput, layout: PrefixLayout): Candidate | undefined {
  const previous = input.previous
  if (previous === undefined || previous.messageCount < 1 || previous.messageCount > layout.messageCount)
    return undefined
  const at = previous.messageCount - 1
  const since = layout.blocksThrough(layout.messageCount - 1) - layout.blocksThrough(at)
  if (since <= LOOKBACK_BLOCKS - 1) return undefined
  return onMessage(layout, at, 'lookback-bridge', '5m')
}

/**
 * The end of the longest run of sections, from the first, that never changed in this session; the whole system
 * string when none changed (or the header named no sections). Nothing when the very first section is volatile.
 */
function stableSystem(input: CachePlanInput, layout: PrefixLayout, ttl: CacheTtl): Candidate | undefined {
  if (layout.systemLength === 0) return undefined
  let offset = layout.systemLength
  for (const section of input.sections) {
    if (section.changes > 0) {
      offset = section.start
      break
    }
  }
  if (offset <= 0) return undefined
  return {
    breakpoint: { at: 'system', offset, ttl, reason: 'stable-system', tokens: layout.systemTokens(offset) },
    order: [1, offset, 0],
  }
}

function compareOrder(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return 0
}

const sameOrder = (a: readonly number[], b: readonly number[]) => compareOrder(a, b) === 0
