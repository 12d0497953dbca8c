/**
 * Rebuilds the request of each `request/digest` from a {@link LogFold}, with the same result and the same errors as
 * `requestForDigest` (that is, `reconstructRequest` of the prefix before the digest), in time proportional to the
 * step and the request rather than to the log. What several requests share is computed once: the canonical header
 * and its section manifest per `request/header`, and the freezing of log objects.
 */
import { deepFreeze, type Message } from '@bridle/llm'
import type {
  AnySessionEvent,
  EpochHeader,
  RequestContext,
  RequestDigestRecord,
  RequestHeaderReason,
} from '../events/events.js'
import type { LogFold } from './replay-fold.js'
import { canonicalHeader } from '../surface/request-header.js'
import type { ReconstructedRequest } from '../surface/reconstruct.js'
import { readSectionManifest, type SystemSectionRecord } from '../events/section-manifest.js'
import * as cut from '../surface/step-cut.js'

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
      const data = cut.turnStepOf(events[stepStart]!)
      turn = data.turn as number
      step = data.step as number
    } else {
      turn = record.turn
      step = record.step
      if (!cut.isPositiveSafeInteger(turn) || !cut.isPositiveSafeInteger(step)) {
        throw new Error('reconstructRequest: turn and step must be positive safe integers')
      }
      stepStart = fold.firstStepStart(turn, step)
      if (stepStart < 0) throw new Error(`reconstructRequest: no step/start for turn ${turn} step ${step}`)
    }

    const where = cut.cutStep(events, stepStart, d, { turn, step, atEnd: retry })
    const { cutSeq } = where

    const surface = fold.surfaceMessages(cutSeq)
    let messages: Message[] = surface.messages
    let messageSeqs: (number | undefined)[] = surface.seqs
    const headerAt = fold.headerBefore(cutSeq)
    if (headerAt < 0) throw new Error(`reconstructRequest: no request/header precedes turn ${turn} step ${step}`)
    const facts = this.headerFacts(headerAt)
    let header = facts.header
    const compaction = cut.compactionRecordIn(events, stepStart, cutSeq, turn, step)
    if (compaction !== undefined) {
      const { count, config, adapterDefaults, instruction } = compaction.record
      cut.checkCompactionCount(count, messages.length, turn, step)
      header = deepFreeze(canonicalHeader({ ...header, config, adapterDefaults }))
      messages = [...messages.slice(0, count), instruction]
      messageSeqs = [...messageSeqs.slice(0, count), undefined]
      deepFreeze(compaction)
    }
    Object.freeze(messages)
    const cache = compaction === undefined ? cut.cachePlanIn(events, stepStart, cutSeq, turn, step) : undefined
    const request = cut.modelRequestOf(header, messages, cache === undefined ? undefined : deepFreeze(cache))
    const contextAt = fold.contextBefore(cutSeq)
    const context = contextAt < 0 ? undefined : deepFreeze(events[contextAt]!.data as RequestContext)
    // The log's messages are deep-frozen as the replay hashes them, once each; here only the new containers.
    const heading = { header, headerSeq: events[headerAt]!.seq, headerReason: facts.reason, sections: facts.sections }
    const body = { context, messages, request: Object.freeze(request), compaction }
    const rebuilt = Object.freeze(cut.rebuiltRecord(where, heading, body))
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
}
