/**
 * The stream protocol: chunks an adapter yields for one response, finish reasons, token usage, and the
 * grammar checker adapter tests use.
 */
import type { CallId, JsonValue } from './ids.js'
import type { ContentBlock, ContentBlockType } from './content.js'
import type { LlmFailure } from './errors.js'

/**
 * Token counts, non-negative integers. Input counts are disjoint: billed input =
 * `inputTokens + (cacheReadTokens ?? 0) + (cacheWriteTokens ?? 0)`. `reasoningTokens` is a breakdown
 * inside `outputTokens`. Optional fields are present only when the provider reported them.
 */
export interface TokenUsage {
  inputTokens: number
  outputTokens: number
  cacheReadTokens?: number
  cacheWriteTokens?: number
  reasoningTokens?: number
}

/** All input tokens the provider billed: uncached plus cache reads plus cache writes. */
export function billedInputTokens(usage: TokenUsage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)
}

/** The extensible finish-reason map, keyed by `kind`. */
export interface FinishReasonMap {
  stop: { kind: 'stop' }
  'tool-calls': { kind: 'tool-calls' }
  'max-tokens': { kind: 'max-tokens' }
  aborted: { kind: 'aborted'; failure: LlmFailure }
  error: { kind: 'error'; failure: LlmFailure }
}

export type FinishReason = FinishReasonMap[keyof FinishReasonMap]
export type FinishKind = FinishReason['kind']

export interface BlockStartChunk {
  type: 'block-start'
  index: number
  blockType: ContentBlockType
}
export interface TextDeltaChunk {
  type: 'text-delta'
  index: number
  text: string
}
export interface ReasoningDeltaChunk {
  type: 'reasoning-delta'
  index: number
  text: string
}
export interface ToolCallDeltaChunk {
  type: 'tool-call-delta'
  index: number
  /** May be `''` until the provider has issued it. */
  id: CallId
  name?: string
  argumentsDelta: string
}
export interface BlockEndChunk {
  type: 'block-end'
  index: number
  /** The authoritative assembled block. */
  block: ContentBlock
}
export interface UsageChunk {
  type: 'usage'
  usage: TokenUsage
}
export interface FinishChunk {
  type: 'finish'
  reason: FinishReason
  replayState?: JsonValue
}

/** The closed chunk union; `index` is the block index within one response. */
export type StreamChunk =
  | BlockStartChunk
  | TextDeltaChunk
  | ReasoningDeltaChunk
  | ToolCallDeltaChunk
  | BlockEndChunk
  | UsageChunk
  | FinishChunk

/**
 * True for a chunk that carries model output: a non-empty text/reasoning delta, or a tool-call delta with a
 * name or a non-empty arguments delta (used to measure time to first token).
 */
export function isTokenDelta(chunk: StreamChunk): boolean {
  switch (chunk.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return chunk.text.length > 0
    case 'tool-call-delta':
      return (typeof chunk.name === 'string' && chunk.name !== '') || chunk.argumentsDelta.length > 0
    default:
      return false
  }
}

const DELTA_BLOCK_TYPE = {
  'text-delta': 'text',
  'reasoning-delta': 'reasoning',
  'tool-call-delta': 'tool-call',
} as const
const CLEAN_FINISHES = new Set(['stop', 'tool-calls', 'max-tokens'])

/**
 * Checks a chunk sequence against the stream grammar and returns human-readable violations (empty = valid):
 * indexes are non-negative safe integers; no second `block-start` for an index; every delta targets an open
 * block of the matching type; `block-end` closes an open block of the same type; at most one `usage`, before
 * `finish`; exactly one `finish`, last; a stop/tool-calls/max-tokens finish leaves no block open.
 */
export function streamGrammarViolations(chunks: Iterable<StreamChunk>): string[] {
  const violations: string[] = []
  const open = new Map<number, string>()
  const started = new Set<number>()
  let usageSeen = false
  let finishAt = -1
  let position = -1
  for (const chunk of chunks) {
    position++
    const at = `chunk ${position} (${String((chunk as { type?: unknown })?.type)})`
    if (finishAt >= 0) violations.push(`${at}: chunk after finish (finish must be last)`)
    if (typeof chunk !== 'object' || chunk === null) {
      violations.push(`${at}: not a chunk object`)
      continue
    }
    if (chunk.type === 'usage') {
      if (usageSeen) violations.push(`${at}: second usage chunk (at most one allowed)`)
      usageSeen = true
      continue
    }
    if (chunk.type === 'finish') {
      if (finishAt >= 0) violations.push(`${at}: second finish chunk (exactly one allowed)`)
      else finishAt = position
      const kind = chunk.reason?.kind
      if (CLEAN_FINISHES.has(kind) && open.size > 0)
        violations.push(`${at}: finish ${kind} leaves block(s) ${[...open.keys()].join(', ')} open`)
      continue
    }
    const index = (chunk as { index?: unknown }).index
    if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0) {
      violations.push(`${at}: index ${String(index)} is not a non-negative safe integer`)
      continue
    }
    if (chunk.type === 'block-start') {
      if (started.has(index)) violations.push(`${at}: second block-start for index ${index}`)
      else {
        started.add(index)
        open.set(index, chunk.blockType)
      }
    } else if (chunk.type === 'block-end') {
      const type = open.get(index)
      const endType = chunk.block?.type
      if (type === undefined) violations.push(`${at}: block-end for index ${index}, which is not open`)
      else if (endType !== type)
        violations.push(
          `${at}: block-end for index ${index} carries a ${String(endType)} block, but the open block is ${type}`,
        )
      else open.delete(index)
    } else if (chunk.type in DELTA_BLOCK_TYPE) {
      const expected = DELTA_BLOCK_TYPE[chunk.type as keyof typeof DELTA_BLOCK_TYPE]
      const type = open.get(index)
      if (type === undefined) violations.push(`${at}: delta for index ${index}, which is not open`)
      else if (type !== expected) violations.push(`${at}: ${chunk.type} for index ${index}, which is a ${type} block`)
    } else {
      violations.push(`${at}: unknown chunk type`)
    }
  }
  if (finishAt < 0) violations.push('missing finish chunk (exactly one, last)')
  return violations
}
