/**
 * The parts of rebuilding a step's request that `reconstructRequest` (one prefix) and the replay (one pass over a
 * whole log) share: where the step's request was cut, its summary-request record, and the model-facing request of a
 * header and its messages (docs/surface-and-reconstruction.md#reconstructing-a-request).
 */
import type { Message } from '@bridle/llm'
import type { AnySessionEvent, CompactionRequestRecord, EpochHeader } from './events.js'
import type { ReconstructedModelRequest } from './reconstruct.js'

interface TurnStep {
  readonly turn?: unknown
  readonly step?: unknown
}

/** An event's `{turn, step}`, or nothing for data that is not an object. */
export const turnStepOf = (event: AnySessionEvent): TurnStep =>
  typeof event.data === 'object' && event.data !== null ? (event.data as TurnStep) : {}

export const isPositiveSafeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0

/**
 * Scans `events[stepStart + 1 .. end)` for the step's first model output, and before it the first event that closed
 * the step (its `step/end`, or its turn's `turn/end`): the request was built before either.
 */
export function stepOutputAndClose(
  events: readonly AnySessionEvent[],
  stepStart: number,
  end: number,
  turn: number,
  step: number,
): { readonly outputSeq: number | undefined; readonly closeSeq: number | undefined } {
  let closeSeq: number | undefined
  for (let i = stepStart + 1; i < end; i++) {
    const event = events[i]!
    const data = turnStepOf(event)
    const ofStep = data.turn === turn && data.step === step
    if ((event.type === 'assistant/chunk' || event.type === 'assistant/message') && ofStep) {
      return { outputSeq: i, closeSeq }
    }
    if (closeSeq === undefined) {
      if (event.type === 'step/end' && ofStep) closeSeq = i
      else if (event.type === 'turn/end' && data.turn === turn) closeSeq = i
    }
  }
  return { outputSeq: undefined, closeSeq }
}

/** The `request/compaction` record of step `{turn, step}` in `events[stepStart + 1 .. end)`, if any. */
export function compactionRecordIn(
  events: readonly AnySessionEvent[],
  stepStart: number,
  end: number,
  turn: number,
  step: number,
): { readonly seq: number; readonly record: CompactionRequestRecord } | undefined {
  for (let i = stepStart + 1; i < end; i++) {
    const event = events[i]!
    if (event.type !== 'request/compaction') continue
    const data = turnStepOf(event)
    if (data.turn === turn && data.step === step)
      return { seq: event.seq, record: event.data as CompactionRequestRecord }
  }
  return undefined
}

/** Throws unless a summary request's `count` names a non-empty part of the surface's `held` messages. */
export function checkCompactionCount(count: number, held: number, turn: number, step: number): void {
  if (!Number.isSafeInteger(count) || count < 1 || count > held) {
    throw new Error(
      `reconstructRequest: the compaction request of turn ${turn} step ${step} carries ${String(count)} messages but the surface holds ${held}`,
    )
  }
}

/** The model-facing request of `header` and `messages`: its call config, then system, tools and the messages. */
export function modelRequestOf(header: EpochHeader, messages: readonly Message[]): ReconstructedModelRequest {
  const request: Record<string, unknown> = { ...header.config }
  if (header.system !== undefined) request.system = header.system
  if (header.tools !== undefined) request.tools = header.tools
  request.messages = messages
  return request as unknown as ReconstructedModelRequest
}
