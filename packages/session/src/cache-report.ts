/**
 * `cachePrefixReport` (docs/provability.md#the-cache-prefix-report): for each digested request, how much of the
 * previous request's prefix it kept (system → tools → messages, the order providers serialize it) and why the rest
 * broke, beside the cached input tokens the provider reported.
 */
import type { Message, TokenUsage, ToolSchema } from '@bridle/llm'
import type { AnySessionEvent, CompactionRequestRecord, RequestDigestRecord } from './events.js'
import { canonicalJson } from './canonical.js'
import { messageChain, messageDigest } from './digest.js'
import { isReplacementSurfaceEvent } from './events.js'
import { requestForDigest } from './verify.js'
import type { ReconstructedRequest } from './reconstruct.js'
import { sectionChanges, type SectionChange } from './section-manifest.js'

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
    readonly moved: readonly string[]
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
  /** Set when the request could not be rebuilt from the log. */
  readonly error?: string
}

interface Digested {
  readonly seq: number
  readonly record: RequestDigestRecord
  readonly usage: TokenUsage | undefined
  readonly rebuilt?: ReconstructedRequest
  readonly error?: string
}

function firstDifferingLine(a: string, b: string): { line: number; previousLine: string; currentLine: string } {
  const x = a.split('\n')
  const y = b.split('\n')
  let i = 0
  while (i < x.length && i < y.length && x[i] === y[i]) i++
  return { line: i + 1, previousLine: x[i] ?? '', currentLine: y[i] ?? '' }
}

function toolDiff(previous: readonly ToolSchema[], current: readonly ToolSchema[]) {
  const prevNames = previous.map((t) => t.name)
  const currNames = current.map((t) => t.name)
  const added = currNames.filter((n) => !prevNames.includes(n))
  const removed = prevNames.filter((n) => !currNames.includes(n))
  const keptPrev = prevNames.filter((n) => currNames.includes(n))
  const keptCurr = currNames.filter((n) => prevNames.includes(n))
  const moved = keptCurr.filter((n, i) => keptPrev[i] !== n)
  const changed = keptCurr.filter((n) => {
    const a = previous.find((t) => t.name === n)
    const b = current.find((t) => t.name === n)
    return canonicalJson(a) !== canonicalJson(b)
  })
  return { added, removed, moved: [...new Set([...moved, ...changed])] }
}

const commonPrefixLength = (a: string, b: string): number => {
  let i = 0
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/** The event a message of `rebuilt` came from: the surface node whose projection is that message. */
function eventOfMessage(
  events: readonly AnySessionEvent[],
  message: Message,
  cutSeq: number,
): AnySessionEvent | undefined {
  for (let i = cutSeq - 1; i >= 0; i--) {
    const e = events[i]!
    const data = e.data as { message?: unknown } | null
    if (e.data === message || data?.message === message) return e
  }
  return undefined
}

function messageBreak(
  events: readonly AnySessionEvent[],
  prev: Digested,
  curr: Digested,
  position: number,
): MessageBreakCause {
  const compaction = curr.rebuilt!.compaction
  if (compaction !== undefined) return { kind: 'compaction-request', seq: compaction.seq }
  for (let i = prev.seq + 1; i < curr.seq; i++) {
    const e = events[i]!
    if (isReplacementSurfaceEvent(e)) return replaceCause(events, e.seq, prev, curr)
  }
  const message = curr.rebuilt!.messages[position]
  const origin = message === undefined ? undefined : eventOfMessage(events, message, curr.rebuilt!.cutSeq)
  if (origin !== undefined && isReplacementSurfaceEvent(origin)) return replaceCause(events, origin.seq, prev, curr)
  const source = (message?.source ?? {}) as { kind?: string; form?: string }
  if (origin !== undefined && source.kind === 'plugin' && source.form === 'snapshot')
    return { kind: 'context-snapshot', seq: origin.seq }
  return { kind: 'changed', seq: origin?.seq }
}

/** A replace cause, with what the compaction did when a compaction step's checkpoint made the replace at `seq`. */
function replaceCause(
  events: readonly AnySessionEvent[],
  seq: number,
  prev: Digested,
  curr: Digested,
): MessageBreakCause {
  const found = compactionOfCheckpoint(events, seq)
  if (found === undefined) return { kind: 'replace', seq }
  const before = totalInput(prev.usage)
  const after = totalInput(curr.usage)
  const compaction: CompactionBreak = {
    turn: found.record.turn,
    step: found.record.step,
    requestSeq: found.seq,
    reason: found.record.reason,
    replacedMessages: found.record.count,
    ...(before !== undefined ? { inputTokensBefore: before } : {}),
    ...(after !== undefined ? { inputTokensAfter: after } : {}),
    ...(before !== undefined && after !== undefined ? { tokensSaved: before - after } : {}),
  }
  return { kind: 'replace', seq, compaction }
}

/** The `request/compaction` record of the step the replace at `seq` was appended in, if that step made one. */
function compactionOfCheckpoint(
  events: readonly AnySessionEvent[],
  seq: number,
): { readonly seq: number; readonly record: CompactionRequestRecord } | undefined {
  for (let i = seq - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type === 'step/start' || e.type === 'step/end' || e.type === 'turn/start') return undefined
    if (e.type === 'request/compaction') return { seq: e.seq, record: e.data as CompactionRequestRecord }
  }
  return undefined
}

const totalInput = (usage: TokenUsage | undefined): number | undefined =>
  usage === undefined ? undefined : usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)

/**
 * The usage the provider reported for the request digested at `digest`: its step's `assistant/message` usage, or
 * (for a summary request, which has no assistant message) the step's `usage` chunk. Stops at the next digest.
 */
function reportedUsage(
  events: readonly AnySessionEvent[],
  digest: { seq: number; record: RequestDigestRecord },
): TokenUsage | undefined {
  for (let i = digest.seq + 1; i < events.length; i++) {
    const e = events[i]!
    if (e.type === 'request/digest') return undefined
    const data = e.data as {
      turn?: number
      step?: number
      usage?: TokenUsage
      chunk?: { type?: string; usage?: TokenUsage }
    }
    if (data?.turn !== digest.record.turn || data.step !== digest.record.step) continue
    if (e.type === 'assistant/message') return data.usage
    if (e.type === 'assistant/chunk' && data.chunk?.type === 'usage') return data.chunk.usage
  }
  return undefined
}

/**
 * One row per digested request, in log order. Each row after the first compares the request with the previous
 * conversation request: whether system, tools and messages held, why they broke (first differing system line; tools
 * added, removed or moved; the compaction — with the messages it replaced and the tokens it saved — or context
 * snapshot that changed history), the prefix kept, and the provider's reported input and cached input tokens.
 * A summary request (`purpose: 'compaction'`) is compared with the conversation request before it, so its row shows
 * how much of that cached prefix it reused.
 */
export function cachePrefixReport(events: readonly AnySessionEvent[]): CachePrefixRow[] {
  const digests: Digested[] = []
  for (const event of events) {
    if (event.type !== 'request/digest') continue
    const record = event.data as RequestDigestRecord
    const usage = reportedUsage(events, { seq: event.seq, record })
    try {
      digests.push({ seq: event.seq, record, usage, rebuilt: requestForDigest(events, event.seq, record) })
    } catch (error) {
      digests.push({ seq: event.seq, record, usage, error: error instanceof Error ? error.message : String(error) })
    }
  }
  let conversation: Digested | undefined
  return digests.map((curr): CachePrefixRow => {
    const inputTokens = totalInput(curr.usage)
    const base = {
      turn: curr.record.turn,
      step: curr.record.step,
      attempt: curr.record.attempt,
      seq: curr.seq,
      ...(curr.record.purpose === 'compaction' ? { purpose: 'compaction' as const } : {}),
      cachedInputTokens: curr.usage?.cacheReadTokens,
      ...(inputTokens !== undefined ? { inputTokens } : {}),
    }
    // Summary requests are compared with the conversation request before them, and are never a baseline themselves.
    const prev = conversation
    if (curr.record.purpose !== 'compaction') conversation = curr
    if (prev === undefined) return curr.error === undefined ? base : { ...base, error: curr.error }
    if (curr.rebuilt === undefined || prev.rebuilt === undefined) {
      return { ...base, previousSeq: prev.seq, error: curr.error ?? prev.error }
    }
    const p = prev.rebuilt.request
    const c = curr.rebuilt.request
    const pSystem = p.system ?? ''
    const cSystem = c.system ?? ''
    const systemKept = curr.record.system === prev.record.system
    const diffLine = systemKept ? undefined : firstDifferingLine(pSystem, cSystem)
    const toolsKept = curr.record.tools === prev.record.tools
    const tools = toolsKept ? { added: [], removed: [], moved: [] } : toolDiff(p.tools ?? [], c.tools ?? [])

    const pCount = prev.record.messages.count
    const chain = messageChain(c.messages)
    const messagesKept = chain[pCount] === prev.record.messages.chain
    let sameMessages = 0
    while (
      sameMessages < p.messages.length &&
      sameMessages < c.messages.length &&
      (p.messages[sameMessages] === c.messages[sameMessages] ||
        messageDigest(p.messages[sameMessages]!) === messageDigest(c.messages[sameMessages]!))
    ) {
      sameMessages++
    }

    const pTools = canonicalJson(p.tools ?? [])
    const cTools = canonicalJson(c.tools ?? [])
    let prefixKept: { messages: number; chars: number }
    if (!systemKept) prefixKept = { messages: 0, chars: commonPrefixLength(pSystem, cSystem) }
    else if (!toolsKept) prefixKept = { messages: 0, chars: cSystem.length + commonPrefixLength(pTools, cTools) }
    else {
      let chars = cSystem.length + cTools.length
      for (let i = 0; i < sameMessages; i++) chars += canonicalJson(c.messages[i]).length
      prefixKept = { messages: sameMessages, chars }
    }

    const pSections = prev.rebuilt.sections
    const cSections = curr.rebuilt.sections
    const sections =
      diffLine !== undefined && pSections && cSections ? { sections: sectionChanges(pSections, cSections) } : {}
    return {
      ...base,
      previousSeq: prev.seq,
      system:
        diffLine === undefined
          ? { kept: true }
          : {
              kept: false,
              firstDifferingLine: diffLine.line,
              previousLine: diffLine.previousLine,
              currentLine: diffLine.currentLine,
              ...sections,
            },
      tools: { kept: toolsKept, ...tools },
      messages: messagesKept
        ? { kept: true }
        : { kept: false, firstDifferingPosition: sameMessages, cause: messageBreak(events, prev, curr, sameMessages) },
      prefixKept,
    }
  })
}
