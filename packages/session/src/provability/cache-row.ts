/**
 * One row of the cache-prefix report: a digested request compared with the previous conversation request. The
 * comparison is shared by the incremental replay and the per-request path; they differ only in how they answer the
 * questions in {@link RowFacts} (memoized over one pass, or recomputed from scratch).
 */
import type { Message, TokenUsage, ToolSchema } from '@bridle/llm'
import type { AnySessionEvent, CompactionRequestRecord, RequestDigestRecord } from '../events/events.js'
import { isReplacementSurfaceEvent } from '../events/events.js'
import type { CachePrefixRow, CompactionBreak, MessageBreakCause } from './cache-types.js'
import type { ReconstructedRequest } from '../surface/reconstruct.js'
import { predictCacheRead } from './cache-prediction.js'
import { sectionChanges } from '../events/section-manifest.js'

/** A `request/digest` of the log with what the report needs of it. */
export interface Digested {
  readonly seq: number
  readonly record: RequestDigestRecord
  readonly usage: TokenUsage | undefined
  readonly rebuilt?: ReconstructedRequest
  readonly error?: string
}

/** The hashing and lookups a row needs, answered by whoever drives the report. */
export interface RowFacts {
  readonly events: readonly AnySessionEvent[]
  /** `messageChain(curr.rebuilt.messages)[k]`: the chain value after the first `k` messages of `curr`. */
  chainAt(curr: Digested, k: number): string | undefined
  messageDigest(message: Message): string
  /** The length of the canonical JSON of the first `k` messages of `curr`, together. */
  messageChars(curr: Digested, k: number): number
  /** `canonicalJson(value)` of a tool list or a tool. */
  canonicalJson(value: unknown): string
  /** The last event before `cutSeq` whose `data` or `data.message` is `message`. */
  eventOfMessage(message: Message, cutSeq: number): AnySessionEvent | undefined
}

function firstDifferingLine(a: string, b: string): { line: number; previousLine: string; currentLine: string } {
  const x = a.split('\n')
  const y = b.split('\n')
  let i = 0
  while (i < x.length && i < y.length && x[i] === y[i]) i++
  return { line: i + 1, previousLine: x[i] ?? '', currentLine: y[i] ?? '' }
}

function toolDiff(previous: readonly ToolSchema[], current: readonly ToolSchema[], facts: RowFacts) {
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
    return facts.canonicalJson(a) !== facts.canonicalJson(b)
  })
  return { added, removed, moved, changed }
}

const commonPrefixLength = (a: string, b: string): number => {
  let i = 0
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

function messageBreak(facts: RowFacts, prev: Digested, curr: Digested, position: number): MessageBreakCause {
  const { events } = facts
  const compaction = curr.rebuilt!.compaction
  if (compaction !== undefined) return { kind: 'compaction-request', seq: compaction.seq }
  for (let i = prev.seq + 1; i < curr.seq; i++) {
    const e = events[i]!
    if (isReplacementSurfaceEvent(e)) return replaceCause(events, e.seq, prev, curr)
  }
  const message = curr.rebuilt!.messages[position]
  const origin = message === undefined ? undefined : facts.eventOfMessage(message, curr.rebuilt!.cutSeq)
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
 * Whether event `e` ends the search for the usage of the request digested with `record`, and the usage it carries:
 * the step's `assistant/message` usage, or (for a summary request, which has no assistant message) the step's `usage`
 * chunk. The search also ends at the next `request/digest`, with no usage.
 */
export function usageIn(
  e: AnySessionEvent,
  record: RequestDigestRecord,
): { usage: TokenUsage | undefined } | undefined {
  if (e.type === 'request/digest') return { usage: undefined }
  const data = e.data as {
    turn?: number
    step?: number
    usage?: TokenUsage
    chunk?: { type?: string; usage?: TokenUsage }
  }
  if (data?.turn !== record.turn || data.step !== record.step) return undefined
  if (e.type === 'assistant/message') return { usage: data.usage }
  if (e.type === 'assistant/chunk' && data.chunk?.type === 'usage') return { usage: data.chunk.usage }
  return undefined
}

/**
 * The row of `curr`, compared with `prev` (the conversation request before it; `undefined` for the first): whether
 * system, tools and messages held, why they broke, the prefix kept, and the provider's reported input tokens.
 */
export function cachePrefixRow(facts: RowFacts, prev: Digested | undefined, curr: Digested): CachePrefixRow {
  const inputTokens = totalInput(curr.usage)
  const base = {
    turn: curr.record.turn,
    step: curr.record.step,
    attempt: curr.record.attempt,
    seq: curr.seq,
    ...(curr.record.purpose === 'compaction' ? { purpose: 'compaction' as const } : {}),
    cachedInputTokens: curr.usage?.cacheReadTokens,
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(curr.usage?.cacheWriteTokens !== undefined ? { cacheWriteTokens: curr.usage.cacheWriteTokens } : {}),
  }
  const plan = curr.rebuilt?.request.cache
  if (prev === undefined) {
    if (curr.error !== undefined) return { ...base, error: curr.error }
    return plan === undefined
      ? base
      : { ...base, cachePlan: predictCacheRead({ plan, messages: curr.rebuilt!.messages }) }
  }
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
  const tools = toolsKept
    ? { added: [], removed: [], moved: [], changed: [] }
    : toolDiff(p.tools ?? [], c.tools ?? [], facts)

  const pCount = prev.record.messages.count
  const messagesKept = facts.chainAt(curr, pCount) === prev.record.messages.chain
  // read once: a long history makes this loop the row's main cost
  const pMessages = p.messages
  const cMessages = c.messages
  const shared = Math.min(pMessages.length, cMessages.length)
  let sameMessages = 0
  while (
    sameMessages < shared &&
    (pMessages[sameMessages] === cMessages[sameMessages] ||
      facts.messageDigest(pMessages[sameMessages]!) === facts.messageDigest(cMessages[sameMessages]!))
  ) {
    sameMessages++
  }

  const pTools = facts.canonicalJson(p.tools ?? [])
  const cTools = facts.canonicalJson(c.tools ?? [])
  let prefixKept: { messages: number; chars: number }
  if (!systemKept) prefixKept = { messages: 0, chars: commonPrefixLength(pSystem, cSystem) }
  else if (!toolsKept) prefixKept = { messages: 0, chars: cSystem.length + commonPrefixLength(pTools, cTools) }
  else {
    prefixKept = {
      messages: sameMessages,
      chars: cSystem.length + cTools.length + facts.messageChars(curr, sameMessages),
    }
  }

  const cachePlan =
    plan === undefined
      ? {}
      : {
          cachePlan: predictCacheRead({
            plan,
            messages: cMessages,
            previous: {
              plan: p.cache,
              elapsedMs: (facts.events[curr.seq]?.time ?? 0) - (facts.events[prev.seq]?.time ?? 0),
              toolsKept,
              systemKept,
              systemCharsKept: systemKept ? cSystem.length : commonPrefixLength(pSystem, cSystem),
              messagesKept: sameMessages,
            },
          }),
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
      : { kept: false, firstDifferingPosition: sameMessages, cause: messageBreak(facts, prev, curr, sameMessages) },
    prefixKept,
    ...cachePlan,
  }
}
