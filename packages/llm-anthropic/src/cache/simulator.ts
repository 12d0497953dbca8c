/**
 * A prompt-cache simulator that bills a sequence of Messages requests the way the API documents it (README.md#prompt-caching, the figures dated there): a prefix is cached only at a `cache_control` breakpoint; a breakpoint reads the
 * longest cached prefix ending at it or at one of the 20 block boundaries before it; a breakpoint shorter than the
 * model's minimum is ignored; at most 4 per request; a written prefix lives 5 minutes or 1 hour and every use renews
 * it. Billing, in multiples of the base input price: uncached input ×1, cache read ×0.1, cache write ×1.25 (5m) or ×2
 * (1h). Used by the tests and by the bench (`bench/anthropic-cache.mjs`) to compare placement policies.
 */
import { createHash } from 'node:crypto'
import type { CacheTtl } from '@bridle/llm'

export const PRICE = Object.freeze({ input: 1, read: 0.1, write5m: 1.25, write1h: 2 })
const TTL_MS: Readonly<Record<CacheTtl, number>> = { '5m': 5 * 60_000, '1h': 60 * 60_000 }

/** One content block of a request, in prefix order (tools, system blocks, message blocks). */
export interface SimBlock {
  /** What the block is on the wire, without its `cache_control` (equal keys: equal bytes). */
  readonly key: string
  readonly tokens: number
}

/** A request as the simulator sees it: its blocks, with prefix hashes and running token counts. */
export interface SimRequest {
  readonly time: number
  readonly blocks: readonly SimBlock[]
  /** `prefix[k]` identifies blocks 0..k. */
  readonly prefix: readonly string[]
  /** `tokensThrough[k]`: tokens of blocks 0..k. */
  readonly tokensThrough: readonly number[]
  readonly totalTokens: number
}

/** A breakpoint at block index `at`. */
export interface SimBreakpoint {
  readonly at: number
  readonly ttl: CacheTtl
}

/** What one request was billed. `cost` is in multiples of the base input price. */
export interface SimBill {
  readonly uncached: number
  readonly read: number
  readonly write5m: number
  readonly write1h: number
  readonly cost: number
}

export interface SimulatorOptions {
  readonly minTokens: number
  readonly lookback?: number
  readonly maxBreakpoints?: number
}

/** Builds a `SimRequest` from blocks. */
export function simRequest(time: number, blocks: readonly SimBlock[]): SimRequest {
  const prefix: string[] = []
  const tokensThrough: number[] = []
  let hash = ''
  let tokens = 0
  for (const block of blocks) {
    hash = createHash('sha256').update(hash).update('\u0000').update(block.key).digest('hex')
    tokens += block.tokens
    prefix.push(hash)
    tokensThrough.push(tokens)
  }
  return { time, blocks, prefix, tokensThrough, totalTokens: tokens }
}

/** Cached prefixes by prefix hash: when each expires and with which TTL it was written. */
export type CacheState = Map<string, { expires: number; ttl: CacheTtl }>

export class CacheSimulator {
  readonly lookback: number
  readonly maxBreakpoints: number
  constructor(
    readonly options: SimulatorOptions,
    public state: CacheState = new Map(),
  ) {
    this.lookback = options.lookback ?? 20
    this.maxBreakpoints = options.maxBreakpoints ?? 4
  }

  /** A simulator with a copy of this one's cache (for searching placements without changing this one). */
  fork(): CacheSimulator {
    return new CacheSimulator(this.options, new Map(this.state))
  }

  /** The longest cached, unexpired prefix a breakpoint at `at` would read: its block index, or -1. */
  readAt(request: SimRequest, at: number): number {
    for (let k = at; k >= 0 && k >= at - this.lookback; k--) {
      const entry = this.state.get(request.prefix[k]!)
      if (entry !== undefined && entry.expires >= request.time) return k
    }
    return -1
  }

  /** Bills `request` with `breakpoints` and updates the cache. Throws on more breakpoints than the API takes. */
  bill(request: SimRequest, breakpoints: readonly SimBreakpoint[]): SimBill {
    if (breakpoints.length > this.maxBreakpoints) {
      throw new Error(`${breakpoints.length} breakpoints: the API takes at most ${this.maxBreakpoints}`)
    }
    const valid = breakpoints
      .filter(
        (b) => b.at >= 0 && b.at < request.blocks.length && request.tokensThrough[b.at]! >= this.options.minTokens,
      )
      .sort((a, b) => a.at - b.at)
    let hit = -1
    for (const b of valid) hit = Math.max(hit, this.readAt(request, b.at))
    const tokensAt = (k: number) => (k < 0 ? 0 : request.tokensThrough[k]!)
    const read = tokensAt(hit)
    const last = valid.at(-1)?.at ?? -1
    let write1h = 0
    let write5m = 0
    if (last > hit) {
      const lastLong = valid.filter((b) => b.ttl === '1h' && b.at > hit).at(-1)?.at
      const longEnd = lastLong === undefined ? read : tokensAt(lastLong)
      write1h = longEnd - read
      write5m = tokensAt(last) - Math.max(read, longEnd)
    }
    const uncached = request.totalTokens - Math.max(read, tokensAt(last))
    // every breakpoint's prefix is now cached (written or renewed), and so is the prefix that was read
    const renew = (k: number, ttl: CacheTtl) => {
      const key = request.prefix[k]!
      const old = this.state.get(key)
      const longer = old !== undefined && old.expires >= request.time && TTL_MS[old.ttl] > TTL_MS[ttl] ? old.ttl : ttl
      this.state.set(key, { expires: request.time + TTL_MS[longer], ttl: longer })
    }
    if (hit >= 0) renew(hit, this.state.get(request.prefix[hit]!)!.ttl)
    for (const b of valid) renew(b.at, b.ttl)
    const cost = uncached * PRICE.input + read * PRICE.read + write5m * PRICE.write5m + write1h * PRICE.write1h
    return { uncached, read, write5m, write1h, cost }
  }
}

/**
 * The blocks of a Messages request body in prefix order, and the breakpoints its `cache_control` markers set
 * (a top-level `cache_control` — the API's automatic caching — marks the last block). `count` gives a text's tokens.
 */
export function blocksOfBody(
  body: Record<string, unknown>,
  count: (text: string) => number,
): { blocks: SimBlock[]; breakpoints: SimBreakpoint[] } {
  const blocks: SimBlock[] = []
  const breakpoints: SimBreakpoint[] = []
  const add = (key: string, item: Record<string, unknown>) => {
    const { cache_control: control, ...rest } = item as { cache_control?: { ttl?: CacheTtl } }
    const text = JSON.stringify(rest)
    blocks.push({ key: `${key}|${text}`, tokens: count(text) })
    if (control !== undefined) breakpoints.push({ at: blocks.length - 1, ttl: control.ttl ?? '5m' })
  }
  for (const tool of (body.tools as Record<string, unknown>[] | undefined) ?? []) add('tool', tool)
  for (const block of (body.system as Record<string, unknown>[] | undefined) ?? []) add('system', block)
  for (const message of (body.messages as { role: string; content: Record<string, unknown>[] }[] | undefined) ?? []) {
    message.content.forEach((block, i) => add(`${message.role}${i === 0 ? ':start' : ''}`, block))
  }
  const auto = body.cache_control as { ttl?: CacheTtl } | undefined
  if (auto !== undefined && blocks.length > 0) breakpoints.push({ at: blocks.length - 1, ttl: auto.ttl ?? '5m' })
  return { blocks, breakpoints }
}
