/**
 * The parts of rebuilding a step's request that `reconstructRequest` (one prefix) and the replay (one pass over a
 * whole log) share: where the step's request was cut, its summary-request record, the model-facing request of a
 * header and its messages, and the record both return (docs/surface-and-reconstruction.md#reconstructing-a-request).
 */
import { isCachePlan, type CachePlan, type Message } from '@bridle/llm'
import type {
  AnySessionEvent,
  CompactionRequestRecord,
  EpochHeader,
  RequestContext,
  RequestHeaderReason,
} from '../events/events.js'
import type { DigestableRequest } from '../events/model-request.js'
import type { SystemSectionRecord } from '../events/section-manifest.js'

interface TurnStep {
  readonly turn?: unknown
  readonly step?: unknown
}

/** An event's `{turn, step}`, or nothing for data that is not an object. */
export const turnStepOf = (event: AnySessionEvent): TurnStep =>
  typeof event.data === 'object' && event.data !== null ? (event.data as TurnStep) : {}

export const isPositiveSafeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0

/** Where the request of a step was cut, the first fields of a rebuilt request (in its public key order). */
export interface StepCut {
  readonly turn: number
  readonly step: number
  readonly stepStartSeq: number
  /** The request was built from `events[0 .. cutSeq)`. */
  readonly cutSeq: number
  /** Seq of the step's first model output; `undefined` means no evidence that the step dispatched. */
  readonly outputSeq: number | undefined
}

/**
 * Cuts the request of step `{turn, step}`, whose `step/start` is `events[stepStart]`, within `events[0 .. end)`: the
 * request was built before the step's first model output, else before the event that closed the step, else at
 * `end`. `atEnd` (the last step of a prefix, or a retry) always cuts at `end`.
 */
export function cutStep(
  events: readonly AnySessionEvent[],
  stepStart: number,
  end: number,
  at: { readonly turn: number; readonly step: number; readonly atEnd: boolean },
): StepCut {
  const { turn, step } = at
  const { outputSeq, closeSeq } = stepOutputAndClose(events, stepStart, end, turn, step)
  return {
    turn,
    step,
    stepStartSeq: events[stepStart]!.seq,
    cutSeq: at.atEnd ? end : (outputSeq ?? closeSeq ?? end),
    outputSeq: outputSeq === undefined ? undefined : events[outputSeq]!.seq,
  }
}

/**
 * Scans `events[stepStart + 1 .. end)` for the step's first model output, and before it the first event that closed
 * the step (its `step/end`, or its turn's `turn/end`).
 */
function stepOutputAndClose(
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

/**
 * The cache plan of step `{turn, step}`'s conversation request: the last `request/cache` of that step in
 * `events[stepStart + 1 .. end)` (a retry builds its request again and records a new one). A record that is not a
 * plan is ignored, as if absent.
 */
export function cachePlanIn(
  events: readonly AnySessionEvent[],
  stepStart: number,
  end: number,
  turn: number,
  step: number,
): CachePlan | undefined {
  for (let i = end - 1; i > stepStart; i--) {
    const event = events[i]!
    if (event.type !== 'request/cache') continue
    const data = event.data as { turn?: unknown; step?: unknown; plan?: unknown }
    if (data.turn === turn && data.step === step && isCachePlan(data.plan)) return data.plan
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
export function modelRequestOf(
  header: EpochHeader,
  messages: readonly Message[],
  cache?: CachePlan,
): ReconstructedModelRequest {
  const request: Record<string, unknown> = { ...header.config }
  if (header.system !== undefined) request.system = header.system
  if (header.tools !== undefined) request.tools = header.tools
  request.messages = messages
  if (cache !== undefined) request.cache = cache
  return request as unknown as ReconstructedModelRequest
}

/** The header part of a rebuilt request: the header it was built under and that header's own record. */
export interface RequestHeading {
  readonly header: EpochHeader
  readonly headerSeq: number
  readonly headerReason: RequestHeaderReason
  /**
   * Which section produced which span of `header.system`, from the header's manifest; `undefined` for a log written
   * before manifests, or when the recorded manifest does not fit the system string.
   */
  readonly sections: readonly SystemSectionRecord[] | undefined
}

/** The model-facing fields of a dispatched request (without `signal` / `sessionId`): exactly what a digest covers. */
export type ReconstructedModelRequest = DigestableRequest

/** A past step's request, rebuilt: where it was cut, the header it was built under, and what it carried. */
export interface ReconstructedRequest extends StepCut, RequestHeading {
  readonly context: RequestContext | undefined
  readonly messages: readonly Message[]
  readonly request: ReconstructedModelRequest
  /** `'compaction'` when the step's request was a summary request (a `request/compaction` record); else absent. */
  readonly purpose?: 'compaction'
  /** The step's `request/compaction` record and its seq, for a summary request. */
  readonly compaction?: { readonly seq: number; readonly record: CompactionRequestRecord }
}

/** What a rebuilt request carries after its cut and heading. */
export interface RequestBody {
  readonly context: RequestContext | undefined
  readonly messages: readonly Message[]
  readonly request: ReconstructedModelRequest
  readonly compaction: { readonly seq: number; readonly record: CompactionRequestRecord } | undefined
}

/**
 * A rebuilt request's record, its keys in the public order (`bridle inspect --json` prints it as is): the cut, the
 * heading, the body, then `purpose` and `compaction` for a summary request only.
 */
export function rebuiltRecord(where: StepCut, heading: RequestHeading, body: RequestBody): ReconstructedRequest {
  const { context, messages, request, compaction } = body
  return {
    ...where,
    ...heading,
    context,
    messages,
    request,
    ...(compaction !== undefined ? { purpose: 'compaction' as const, compaction } : {}),
  }
}
