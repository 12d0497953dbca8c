/**
 * Rebuilds the request of each `request/digest` from a {@link LogFold}, with the same result and the same errors as
 * `requestForDigest` (that is, `reconstructRequest` of the prefix before the digest), in time proportional to the
 * step and the request rather than to the log. What several requests share is computed once: the canonical header
 * and its section manifest per `request/header`, and the freezing of log objects.
 */
import { deepFreeze, type Message } from '@bridle/llm'
import type {
  AnySessionEvent,
  CompactionRequestRecord,
  EpochHeader,
  RequestContext,
  RequestDigestRecord,
  RequestHeaderReason,
} from './events.js'
import type { LogFold } from './replay-fold.js'
import { canonicalHeader } from './request-header.js'
import type { ReconstructedModelRequest, ReconstructedRequest } from './reconstruct.js'
import { readSectionManifest, type SystemSectionRecord } from './section-manifest.js'

const isPositiveSafeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0

type TurnStep = { readonly turn?: unknown; readonly step?: unknown }
const dataOf = (event: AnySessionEvent): TurnStep =>
  typeof event.data === 'object' && event.data !== null ? (event.data as TurnStep) : {}

interface HeaderFacts {
  readonly header: EpochHeader
  readonly reason: RequestHeaderReason
  readonly sections: readonly SystemSectionRecord[] | undefined
}

/** A rebuilt request and, for each of its messages, the seq of the surface event it came from. */
export interface Rebuilt {
  readonly rebuilt: ReconstructedRequest
  /** `undefined` for a summary request's instruction, which no surface event carries. */
  readonly messageSeqs: readonly (number | undefined)[]
}

export class RequestRebuilder {
  /** Canonical header and checked manifest of each `request/header`, by index. */
  private readonly headers = new Map<number, HeaderFacts>()

  constructor(
    private readonly events: readonly AnySessionEvent[],
    private readonly fold: LogFold,
  ) {}

  /** The request of the digest at index `d` (the fold must stand at `d`); throws what `reconstructRequest` throws. */
  rebuild(d: number, record: RequestDigestRecord): Rebuilt {
    const { events, fold } = this
    let stepStart: number
    let turn: number
    let step: number
    const retry = record.attempt > 1
    if (retry) {
      stepStart = fold.lastStepStart
      if (stepStart < 0) throw new Error('reconstructRequest: no step/start in the given events')
      const data = dataOf(events[stepStart]!)
      turn = data.turn as number
      step = data.step as number
    } else {
      turn = record.turn
      step = record.step
      if (!isPositiveSafeInteger(turn) || !isPositiveSafeInteger(step)) {
        throw new Error('reconstructRequest: turn and step must be positive safe integers')
      }
      stepStart = fold.firstStepStart(turn, step)
      if (stepStart < 0) throw new Error(`reconstructRequest: no step/start for turn ${turn} step ${step}`)
    }

    let outputSeq: number | undefined
    let closeSeq: number | undefined
    for (let i = stepStart + 1; i < d; i++) {
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
    const cutSeq = retry ? d : (outputSeq ?? closeSeq ?? d)

    const surface = fold.surfaceMessages(cutSeq)
    let messages: Message[] = surface.messages
    let messageSeqs: (number | undefined)[] = surface.seqs
    const headerAt = fold.headerBefore(cutSeq)
    if (headerAt < 0) throw new Error(`reconstructRequest: no request/header precedes turn ${turn} step ${step}`)
    const facts = this.headerFacts(headerAt)
    let header = facts.header
    const compaction = this.compactionRecord(stepStart, cutSeq, turn, step)
    if (compaction !== undefined) {
      const { count, config, adapterDefaults, instruction } = compaction.record
      if (!Number.isSafeInteger(count) || count < 1 || count > messages.length) {
        throw new Error(
          `reconstructRequest: the compaction request of turn ${turn} step ${step} carries ${String(count)} messages but the surface holds ${messages.length}`,
        )
      }
      header = deepFreeze(canonicalHeader({ ...header, config, adapterDefaults }))
      messages = [...messages.slice(0, count), instruction]
      messageSeqs = [...messageSeqs.slice(0, count), undefined]
      deepFreeze(compaction)
    }
    Object.freeze(messages)
    const request: Record<string, unknown> = { ...header.config }
    if (header.system !== undefined) request.system = header.system
    if (header.tools !== undefined) request.tools = header.tools
    request.messages = messages
    const contextAt = fold.contextBefore(cutSeq)
    const context = contextAt < 0 ? undefined : deepFreeze(events[contextAt]!.data as RequestContext)
    // The log's messages are deep-frozen as the replay hashes them, once each; here only the new containers.
    const rebuilt: ReconstructedRequest = Object.freeze({
      turn,
      step,
      stepStartSeq: events[stepStart]!.seq,
      cutSeq,
      outputSeq: outputSeq === undefined ? undefined : events[outputSeq]!.seq,
      header,
      headerSeq: events[headerAt]!.seq,
      headerReason: facts.reason,
      sections: facts.sections,
      context,
      messages,
      request: Object.freeze(request) as unknown as ReconstructedModelRequest,
      ...(compaction !== undefined ? { purpose: 'compaction' as const, compaction } : {}),
    })
    return { rebuilt, messageSeqs: Object.freeze(messageSeqs) }
  }

  private headerFacts(at: number): HeaderFacts {
    let facts = this.headers.get(at)
    if (facts === undefined) {
      const data = this.events[at]!.data as { header: EpochHeader; reason: RequestHeaderReason; sections?: unknown }
      const header = deepFreeze(canonicalHeader(data.header))
      const sections = deepFreeze(readSectionManifest(header.system ?? '', data.sections))
      facts = { header, reason: data.reason, sections }
      this.headers.set(at, facts)
    }
    return facts
  }

  /** The step's `request/compaction` record between its `step/start` and the cut, if any. */
  private compactionRecord(
    stepStart: number,
    cutSeq: number,
    turn: number,
    step: number,
  ): { readonly seq: number; readonly record: CompactionRequestRecord } | undefined {
    for (let i = stepStart + 1; i < cutSeq; i++) {
      const event = this.events[i]!
      if (event.type !== 'request/compaction') continue
      const data = dataOf(event)
      if (data.turn === turn && data.step === step)
        return { seq: event.seq, record: event.data as CompactionRequestRecord }
    }
    return undefined
  }
}
