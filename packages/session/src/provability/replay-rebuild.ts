/**
 * Rebuilds the request of each `request/digest` from a {@link LogFold}, with the same result and the same errors as
 * `requestForDigest` (that is, `reconstructRequest` of the prefix before the digest), in time proportional to the
 * step and the request rather than to the log. What several requests share is computed once: the canonical header
 * and its section manifest per `request/header`, and the freezing of log objects.
 */
import { type CachePlan, deepFreeze, type Message } from '@bridle/llm'
import type {
  AnySessionEvent,
  CompactionRequestRecord,
  EpochHeader,
  RequestContext,
  RequestDigestRecord,
  RequestHeaderReason,
} from '../events/events.js'
import type { LogFold, SurfaceMessages } from './replay-fold.js'
import { canonicalHeader } from '../surface/request-header.js'
import type { ReconstructedRequest } from '../surface/reconstruct.js'
import type { RequestHeading, StepCut } from '../surface/step-cut.js'
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

/**
 * Where a digest's request comes from, found without reading its messages: the step's cut, the header it was built
 * under (a summary request's own config applied) and the rest of its heading, its compaction record, its context,
 * and how many messages the surface held at the cut.
 */
export interface Located {
  readonly where: StepCut
  readonly heading: RequestHeading
  readonly compaction: { readonly seq: number; readonly record: CompactionRequestRecord } | undefined
  /** Index of the `request/context` before the cut, or -1. */
  readonly contextAt: number
  /** The step's cache placement (`request/cache`), deep-frozen; a summary request carries none. */
  readonly cache: CachePlan | undefined
  /** Messages in the surface at the cut (before a summary request keeps only its first `count`). */
  readonly count: number
  /**
   * The surface at the cut when the fold did not stand there (a digest logged after its step's output, folded
   * afresh); `undefined` when the cut is the fold's position, where the fold's own surface is the request's.
   */
  readonly surface: SurfaceMessages | undefined
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
    const located = this.locate(d, record)
    return this.materialize(located, located.surface ?? this.fold.surfaceMessages(located.where.cutSeq))
  }

  /**
   * Everything {@link rebuild} finds before it lists the request's messages, with the same errors in the same
   * order; the fold must stand at `d`. What it costs does not grow with the history.
   */
  locate(d: number, record: RequestDigestRecord): Located {
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

    let surface: SurfaceMessages | undefined
    let count: number
    if (cutSeq === fold.position) {
      fold.checkSurface(cutSeq)
      count = fold.messageCount
    } else {
      surface = fold.surfaceMessages(cutSeq)
      count = surface.messages.length
    }
    const headerAt = fold.headerBefore(cutSeq)
    if (headerAt < 0) throw new Error(`reconstructRequest: no request/header precedes turn ${turn} step ${step}`)
    const facts = this.headerFacts(headerAt)
    let header = facts.header
    const compaction = cut.compactionRecordIn(events, stepStart, cutSeq, turn, step)
    if (compaction !== undefined) {
      const { count: kept, config, adapterDefaults } = compaction.record
      cut.checkCompactionCount(kept, count, turn, step)
      header = deepFreeze(canonicalHeader({ ...header, config, adapterDefaults }))
      deepFreeze(compaction)
    }
    const cache = compaction === undefined ? cut.cachePlanIn(events, stepStart, cutSeq, turn, step) : undefined
    const heading = { header, headerSeq: events[headerAt]!.seq, headerReason: facts.reason, sections: facts.sections }
    return {
      where,
      heading,
      compaction,
      contextAt: fold.contextBefore(cutSeq),
      cache: cache === undefined ? undefined : deepFreeze(cache),
      count,
      surface,
    }
  }

  /** The request {@link locate} found, given the surface's messages at its cut (at least its `count` first). */
  materialize(located: Located, surface: SurfaceMessages): Rebuilt {
    const { where, heading, compaction, contextAt, cache } = located
    let messages: Message[] = surface.messages
    let messageSeqs: (number | undefined)[] = surface.seqs
    if (compaction !== undefined) {
      const { count, instruction } = compaction.record
      messages = [...messages.slice(0, count), instruction]
      messageSeqs = [...messageSeqs.slice(0, count), undefined]
    }
    Object.freeze(messages)
    const request = cut.modelRequestOf(heading.header, messages, cache)
    const context = contextAt < 0 ? undefined : deepFreeze(this.events[contextAt]!.data as RequestContext)
    // The log's messages are deep-frozen as the replay hashes them, once each; here only the new containers.
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
