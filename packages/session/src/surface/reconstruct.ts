/**
 * `reconstructRequest` (docs/surface-and-reconstruction.md#reconstructing-a-request): rebuilds the request any past
 * step was built from, using only a log prefix.
 */
import { deepFreeze, type Message } from '@bridle/llm'
import type { AnySessionEvent } from '../events/events.js'
import { deriveEventMessage } from './derive.js'
import { canonicalHeader, foldRequestContext, lastRequestHeaderRecord } from './request-header.js'
import { readSectionManifest } from '../events/section-manifest.js'
import {
  cachePlanIn,
  checkCompactionCount,
  compactionRecordIn,
  isPositiveSafeInteger,
  cutStep,
  modelRequestOf,
  type ReconstructedRequest,
  rebuiltRecord,
  turnStepOf,
} from './step-cut.js'
import { foldSurface } from './surface.js'

export type { ReconstructedModelRequest, ReconstructedRequest } from './step-cut.js'

/** One `step/start` of a log. */
export interface RequestStep {
  readonly turn: number
  readonly step: number
  readonly stepStartSeq: number
}

/**
 * The history a log prefix projects to, folded from scratch: its surface, each node's message (`deriveEventMessage`),
 * in surface order. Throws on a surface error in `events`. The messages are the log's own objects.
 */
export function surfaceMessages(events: readonly AnySessionEvent[]): Message[] {
  const messages: Message[] = []
  for (const seq of foldSurface(events).nodes) {
    const message = deriveEventMessage(events[seq]!)
    if (message !== null) messages.push(message)
  }
  return messages
}

/** Lists `{turn, step, stepStartSeq}` for every `step/start` of `events`, in log order. */
export function requestSteps(events: readonly AnySessionEvent[]): RequestStep[] {
  const steps: RequestStep[] = []
  for (const event of events) {
    if (event.type !== 'step/start') continue
    const { turn, step } = turnStepOf(event)
    steps.push({ turn: turn as number, step: step as number, stepStartSeq: event.seq })
  }
  return steps
}

/**
 * Rebuilds the request of step `at` (or, without `at`, of the last `step/start` with the whole of `events` as the
 * request point). Pure, O(cutSeq). Throws on bad coordinates, a missing step, a missing header, or a surface error
 * in the prefix. The result is deep-frozen and its messages are the log's own objects.
 */
export function reconstructRequest(
  events: readonly AnySessionEvent[],
  at?: { readonly turn: number; readonly step: number },
): ReconstructedRequest {
  let stepStart = -1
  let turn: number
  let step: number
  if (at !== undefined) {
    turn = at.turn
    step = at.step
    if (!isPositiveSafeInteger(turn) || !isPositiveSafeInteger(step)) {
      throw new Error('reconstructRequest: turn and step must be positive safe integers')
    }
    stepStart = events.findIndex(
      (e) => e.type === 'step/start' && turnStepOf(e).turn === turn && turnStepOf(e).step === step,
    )
    if (stepStart < 0) throw new Error(`reconstructRequest: no step/start for turn ${turn} step ${step}`)
  } else {
    for (let i = events.length - 1; i >= 0; i--) {
      if (events[i]!.type === 'step/start') {
        stepStart = i
        break
      }
    }
    if (stepStart < 0) throw new Error('reconstructRequest: no step/start in the given events')
    const data = turnStepOf(events[stepStart]!)
    turn = data.turn as number
    step = data.step as number
  }

  const where = cutStep(events, stepStart, events.length, { turn, step, atEnd: at === undefined })
  const prefix = events.slice(0, where.cutSeq)

  let messages = surfaceMessages(prefix)
  const record = lastRequestHeaderRecord(prefix)
  if (record === undefined) throw new Error(`reconstructRequest: no request/header precedes turn ${turn} step ${step}`)
  let header = canonicalHeader(record.header)
  const compaction = compactionRecordIn(prefix, stepStart, prefix.length, turn, step)
  if (compaction !== undefined) {
    const { count, config, adapterDefaults, instruction } = compaction.record
    checkCompactionCount(count, messages.length, turn, step)
    // A summary request: the conversation's system and tools, its own route, the summarized messages, the instruction.
    header = canonicalHeader({ ...header, config, adapterDefaults })
    messages = [...messages.slice(0, count), instruction]
  }
  const sections = readSectionManifest(header.system ?? '', record.sections)
  const heading = { header, headerSeq: record.seq, headerReason: record.reason, sections }
  // a summary request carries no cache plan; a conversation request the one its step recorded
  const cache = compaction === undefined ? cachePlanIn(prefix, stepStart, prefix.length, turn, step) : undefined
  const request = modelRequestOf(header, messages, cache)
  return deepFreeze(
    rebuiltRecord(where, heading, { context: foldRequestContext(prefix), messages, request, compaction }),
  )
}
