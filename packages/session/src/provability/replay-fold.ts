/**
 * The log state a replay carries from one request to the next: the surface (folded once, each node projected once),
 * the last `request/header` and `request/context`, and where each step started. With it, the request a digest
 * describes is rebuilt without reading the log prefix again. Only for logs whose seqs are their indexes (every log a
 * session wrote); `replay.ts` sends any other log down the per-request path.
 */
import type { Message } from '@bridle/llm'
import { isSurfaceEligibleType, type AnySessionEvent } from '../events/events.js'
import { deriveEventMessage } from '../surface/derive.js'
import { lastRequestHeaderRecord } from '../surface/request-header.js'
import { planSurface, SurfaceState, type SurfaceView } from '../surface/surface.js'

/** The messages of a prefix's surface, and for each the seq of the surface event it is the projection of. */
export interface SurfaceMessages {
  readonly messages: Message[]
  readonly seqs: number[]
}

/** What `reconstructRequest` reads of a log prefix, kept up to date one event at a time. */
export class LogFold {
  /** Events folded so far: the fold describes `events[0 .. position)`. */
  position = 0
  /** Index of the first surface error, and the error; the surface is not folded past it. */
  private failure: { readonly at: number; readonly error: unknown } | undefined
  /** The surface's nodes (their seqs, in order), planned over the log itself: its seqs are its indexes. */
  private readonly state = new SurfaceState()
  private readonly view: SurfaceView
  /** The surface nodes' projections (`null` for a node with no message), aligned with the nodes. */
  private readonly projections: (Message | null)[] = []
  /**
   * The last {@link surfaceMessages} result at the fold's position, and what was appended since: consecutive requests
   * share their history, so the next list is the last one extended (one block copy) unless a replace intervened.
   */
  private built: SurfaceMessages | undefined
  private readonly appended: SurfaceMessages = { messages: [], seqs: [] }
  /** How many messages the surface holds now (non-null projections). */
  messageCount = 0
  /** How many replaces were applied so far: equal counts at two positions mean only appends happened between. */
  replaces = 0
  /** Called before a replace is applied, while the surface still holds what it replaces. */
  beforeReplace: (() => void) | undefined
  /** With `measure`: each node's message length (0 for none), aligned with the nodes, and their sum (stale: `undefined`). */
  private readonly lengths: number[] = []
  private chars: number | undefined = 0
  private lastHeader = -1
  private lastContext = -1
  /** Index of the last `step/start`. */
  lastStepStart = -1
  /** The first `step/start` of each turn and step, by its data's `turn` then `step`. */
  private readonly stepStarts = new Map<unknown, Map<unknown, number>>()

  /**
   * `measure`, when given, is a message's canonical JSON length (see {@link charsNow}); each message is measured once,
   * as the event that brings it is folded.
   */
  constructor(
    private readonly events: readonly AnySessionEvent[],
    private readonly measure?: (message: Message) => number,
  ) {
    const { state } = this
    const fold = this
    this.view = {
      // the event being planned is the one before the new position
      get expectedSeq() {
        return fold.position - 1
      },
      nodes: state.order,
      indexOf: (seq) => state.indexOf(seq),
      eventAt: (seq) => events[seq],
    }
  }

  /** Folds the next event. */
  advance(): void {
    const index = this.position++
    const event = this.events[index]!
    // an event that is no surface node and carries no surface marker leaves the surface alone (most of a log)
    const planned =
      event.surfaceOp !== undefined || event.sourceEventSeqs !== undefined || isSurfaceEligibleType(event.type)
    if (this.failure === undefined && planned) {
      try {
        const plan = planSurface(this.view, event)
        if (plan.kind === 'append') {
          const message = deriveEventMessage(event)
          this.state.apply(plan)
          this.projections.push(message)
          if (this.measure !== undefined) {
            const length = message === null ? 0 : this.measure(message)
            this.lengths.push(length)
            if (this.chars !== undefined) this.chars += length
          }
          if (message !== null) {
            this.messageCount++
            // what was appended since the last list built matters only while there is one to extend
            if (this.built !== undefined) {
              this.appended.messages.push(message)
              this.appended.seqs.push(event.seq)
            }
          }
        } else if (plan.kind === 'replace') {
          this.beforeReplace?.()
          const message = deriveEventMessage(event)
          this.state.apply(plan)
          const count = plan.endIndex - plan.startIndex + 1
          const removed = this.projections.splice(plan.startIndex, count, message)
          if (this.measure !== undefined)
            this.lengths.splice(plan.startIndex, count, message === null ? 0 : this.measure(message))
          for (const entry of removed) if (entry !== null) this.messageCount--
          if (message !== null) this.messageCount++
          this.replaces++
          this.chars = undefined
          this.built = undefined
        }
      } catch (error) {
        this.failure = { at: index, error }
      }
    }
    switch (event.type) {
      case 'request/header':
        this.lastHeader = index
        break
      case 'request/context':
        this.lastContext = index
        break
      case 'step/start': {
        this.lastStepStart = index
        const data =
          typeof event.data === 'object' && event.data !== null ? (event.data as Record<string, unknown>) : {}
        let steps = this.stepStarts.get(data.turn)
        if (steps === undefined) this.stepStarts.set(data.turn, (steps = new Map()))
        if (!steps.has(data.step)) steps.set(data.step, index)
        break
      }
    }
  }

  /** Index of the first `step/start` folded so far with data `{turn, step}`, or -1. */
  firstStepStart(turn: number, step: number): number {
    return this.stepStarts.get(turn)?.get(step) ?? -1
  }

  /**
   * The surface messages of `events[0 .. cut)`, with their seqs; throws the prefix's surface error as folding it from
   * scratch would. A cut behind the fold's position (a digest written after its step's output) is folded afresh.
   */
  surfaceMessages(cut: number): SurfaceMessages {
    if (this.failure !== undefined && this.failure.at < cut) throw this.failure.error
    if (cut !== this.position) return foldedFromScratch(this.events, cut)
    const { appended } = this
    if (this.built !== undefined) {
      if (appended.messages.length > 0) {
        this.built = {
          // spread, not `concat`: callers freeze these lists, and V8 copies a frozen array slowly in `concat`
          messages: [...this.built.messages, ...appended.messages],
          seqs: [...this.built.seqs, ...appended.seqs],
        }
      }
    } else this.built = this.collect()
    appended.messages.length = 0
    appended.seqs.length = 0
    // callers freeze what they are given and build new lists for anything they change
    return this.built
  }

  /** Throws the prefix's surface error, as {@link surfaceMessages} would for a cut at `cut`. */
  checkSurface(cut: number): void {
    if (this.failure !== undefined && this.failure.at < cut) throw this.failure.error
  }

  /**
   * The first `count` messages of the surface as it stands now, with their seqs: a new list, and no cache touched.
   * Valid for a past cut as long as only appends happened since (same {@link replaces}).
   */
  messagesNow(count: number): SurfaceMessages {
    const all = this.collect()
    if (count < all.messages.length) {
      all.messages.length = count
      all.seqs.length = count
    }
    return all
  }

  /** The canonical JSON length of the surface's messages together, measured with the constructor's `measure`. */
  charsNow(): number {
    if (this.chars === undefined) {
      let chars = 0
      for (const length of this.lengths) chars += length
      this.chars = chars
    }
    return this.chars
  }

  /** The non-null projections, with their seqs. */
  private collect(): SurfaceMessages {
    const messages: Message[] = []
    const seqs: number[] = []
    for (let i = 0; i < this.projections.length; i++) {
      const message = this.projections[i]!
      if (message === null) continue
      messages.push(message)
      seqs.push(this.state.order[i]!)
    }
    return { messages, seqs }
  }

  /** Index of the last `request/header` before `cut`, or -1. */
  headerBefore(cut: number): number {
    if (cut === this.position) return this.lastHeader
    return lastRequestHeaderRecord(this.events, cut)?.seq ?? -1
  }

  /** Index of the last `request/context` before `cut`, or -1. */
  contextBefore(cut: number): number {
    if (cut === this.position) return this.lastContext
    for (let i = cut - 1; i >= 0; i--) if (this.events[i]!.type === 'request/context') return i
    return -1
  }
}

/** {@link LogFold.surfaceMessages} for a cut behind the fold: the prefix folded on its own. */
function foldedFromScratch(events: readonly AnySessionEvent[], cut: number): SurfaceMessages {
  const fold = new LogFold(events)
  while (fold.position < cut) fold.advance()
  return fold.surfaceMessages(cut)
}
