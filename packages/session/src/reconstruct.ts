/**
 * `reconstructRequest` (docs/surface-and-reconstruction.md#reconstructing-a-request): rebuilds the request any past
 * step was built from, using only a log prefix.
 */
import { deepFreeze, type Message } from '@bridle/llm'
import type {
  AnySessionEvent,
  CompactionRequestRecord,
  EpochHeader,
  RequestContext,
  RequestHeaderReason,
} from './events.js'
import { deriveEventMessage } from './derive.js'
import type { DigestableRequest } from './digest.js'
import { canonicalHeader, foldRequestContext, lastRequestHeaderRecord } from './request-header.js'
import { readSectionManifest, type SystemSectionRecord } from './section-manifest.js'
import { foldSurface } from './surface.js'

/** The model-facing fields of a dispatched request (without `signal` / `sessionId`): exactly what a digest covers. */
export type ReconstructedModelRequest = DigestableRequest

export interface ReconstructedRequest {
  readonly turn: number
  readonly step: number
  readonly stepStartSeq: number
  /** The prefix `events[0 .. cutSeq)` the request was built from. */
  readonly cutSeq: number
  /** Seq of the step's first model output; `undefined` means no evidence that the step dispatched. */
  readonly outputSeq: number | undefined
  readonly header: EpochHeader
  readonly headerSeq: number
  readonly headerReason: RequestHeaderReason
  /**
   * Which section produced which span of `header.system`, from the header's manifest; `undefined` for a log written
   * before manifests, or when the recorded manifest does not fit the system string.
   */
  readonly sections: readonly SystemSectionRecord[] | undefined
  readonly context: RequestContext | undefined
  readonly messages: readonly Message[]
  readonly request: ReconstructedModelRequest
  /** `'compaction'` when the step's request was a summary request (a `request/compaction` record); else absent. */
  readonly purpose?: 'compaction'
  /** The step's `request/compaction` record and its seq, for a summary request. */
  readonly compaction?: { readonly seq: number; readonly record: CompactionRequestRecord }
}

/** One `step/start` of a log. */
export interface RequestStep {
  readonly turn: number
  readonly step: number
  readonly stepStartSeq: number
}

const isPositiveSafeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0

interface TurnStep {
  readonly turn?: unknown
  readonly step?: unknown
}

const dataOf = (event: AnySessionEvent): TurnStep =>
  typeof event.data === 'object' && event.data !== null ? (event.data as TurnStep) : {}

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
    const { turn, step } = dataOf(event)
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
    stepStart = events.findIndex((e) => e.type === 'step/start' && dataOf(e).turn === turn && dataOf(e).step === step)
    if (stepStart < 0) throw new Error(`reconstructRequest: no step/start for turn ${turn} step ${step}`)
  } else {
    for (let i = events.length - 1; i >= 0; i--) {
      if (events[i]!.type === 'step/start') {
        stepStart = i
        break
      }
    }
    if (stepStart < 0) throw new Error('reconstructRequest: no step/start in the given events')
    const data = dataOf(events[stepStart]!)
    turn = data.turn as number
    step = data.step as number
  }

  let outputSeq: number | undefined
  let closeSeq: number | undefined
  for (let i = stepStart + 1; i < events.length; i++) {
    const event = events[i]!
    const data = dataOf(event)
    if (
      (event.type === 'assistant/chunk' || event.type === 'assistant/message') &&
      data.turn === turn &&
      data.step === step
    ) {
      outputSeq = i
      break
    }
    if (closeSeq === undefined) {
      if (event.type === 'step/end' && data.turn === turn && data.step === step) closeSeq = i
      else if (event.type === 'turn/end' && data.turn === turn) closeSeq = i
    }
  }
  const cutSeq = at === undefined ? events.length : (outputSeq ?? closeSeq ?? events.length)
  const prefix = events.slice(0, cutSeq)

  let messages = surfaceMessages(prefix)
  const record = lastRequestHeaderRecord(prefix)
  if (record === undefined) throw new Error(`reconstructRequest: no request/header precedes turn ${turn} step ${step}`)
  let header = canonicalHeader(record.header)
  const compaction = compactionRecordOf(prefix, stepStart, turn, step)
  if (compaction !== undefined) {
    const { count, config, adapterDefaults, instruction } = compaction.record
    if (!Number.isSafeInteger(count) || count < 1 || count > messages.length) {
      throw new Error(
        `reconstructRequest: the compaction request of turn ${turn} step ${step} carries ${String(count)} messages but the surface holds ${messages.length}`,
      )
    }
    // A summary request: the conversation's system and tools, its own route, the summarized messages, the instruction.
    header = canonicalHeader({ ...header, config, adapterDefaults })
    messages = [...messages.slice(0, count), instruction]
  }
  const request: Record<string, unknown> = { ...header.config }
  if (header.system !== undefined) request.system = header.system
  if (header.tools !== undefined) request.tools = header.tools
  request.messages = messages
  return deepFreeze({
    turn,
    step,
    stepStartSeq: events[stepStart]!.seq,
    cutSeq,
    outputSeq: outputSeq === undefined ? undefined : events[outputSeq]!.seq,
    header,
    headerSeq: record.seq,
    headerReason: record.reason,
    sections: readSectionManifest(header.system ?? '', record.sections),
    context: foldRequestContext(prefix),
    messages,
    request: request as unknown as ReconstructedModelRequest,
    ...(compaction !== undefined ? { purpose: 'compaction' as const, compaction } : {}),
  })
}

/** The `request/compaction` record of step `{turn, step}` inside `prefix` (after its `step/start`), if any. */
function compactionRecordOf(
  prefix: readonly AnySessionEvent[],
  stepStart: number,
  turn: number,
  step: number,
): { readonly seq: number; readonly record: CompactionRequestRecord } | undefined {
  for (let i = stepStart + 1; i < prefix.length; i++) {
    const event = prefix[i]!
    if (event.type !== 'request/compaction') continue
    const data = dataOf(event)
    if (data.turn === turn && data.step === step)
      return { seq: event.seq, record: event.data as CompactionRequestRecord }
  }
  return undefined
}
