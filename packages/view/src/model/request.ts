import type { Message } from '@bridle/llm'
import {
  describeBreakpoint,
  describeCacheMiss,
  isReplacementSurfaceEvent,
  replayRequests,
  type AnySessionEvent,
  type CachePrefixRow,
  type ReconstructedRequest,
  type ReplayedRequest,
} from '@bridle/session'
import type { MessageView, RequestRow, RequestView } from '../types.js'
import { messageView, plainText } from './describe.js'
import { requestDiff } from './diff.js'
import { systemSpans } from './sections.js'

/**
 * The view of a message with the surface event that put it there. A file that carries every request stores each
 * message once, so the same message from the same event must give the same view object: `MessageViews` keeps them.
 */
export class MessageViews {
  private readonly views = new Map<Message, Map<number | undefined, MessageView>>()

  constructor(private readonly events: readonly AnySessionEvent[]) {}

  of(message: Message, seq: number | undefined): MessageView {
    let bySeq = this.views.get(message)
    if (bySeq === undefined) this.views.set(message, (bySeq = new Map()))
    let view = bySeq.get(seq)
    if (view === undefined) {
      const origin = seq === undefined ? undefined : this.events[seq]
      view = messageView(
        message,
        origin && { seq: origin.seq, type: origin.type, replacement: isReplacementSurfaceEvent(origin) },
      )
      bySeq.set(seq, view)
    }
    return view
  }

  /** The messages of a rebuilt request, each with the surface event that put it there. */
  ofRequest({ rebuilt, messageSeqs }: ReplayedRequest): MessageView[] {
    return rebuilt === undefined ? [] : rebuilt.messages.map((message, i) => this.of(message, messageSeqs[i]))
  }
}

function spansOf(rebuilt: ReconstructedRequest) {
  return { spans: systemSpans(rebuilt.header.system ?? '', rebuilt.sections), named: rebuilt.sections !== undefined }
}

/** The latest runtime-context snapshot among a request's messages. */
function snapshotOf(rebuilt: ReconstructedRequest, views: readonly MessageView[]): RequestView['snapshot'] {
  for (let i = rebuilt.messages.length - 1; i >= 0; i--) {
    const message: Message = rebuilt.messages[i]!
    const source = message.source as { kind: string; form?: string; sections?: { name: string; text: string }[] }
    if (source.kind !== 'plugin' || source.form !== 'snapshot') continue
    return {
      ...(views[i]!.seq !== undefined ? { seq: views[i]!.seq } : {}),
      sections: (source.sections ?? []).map((s) => ({ name: s.name, text: s.text })),
      text: plainText(message.content),
    }
  }
  return undefined
}

export interface RequestViewInput {
  sessionId: string
  events: readonly AnySessionEvent[]
  /** The request's row on the session page (verification, usage, latency). */
  row: RequestRow
  /** The request as the replay of the log rebuilt it, with its `cachePrefixReport` row. */
  current: ReplayedRequest
  /** The request its cache row compares it with (`cache.previousSeq`), when there is one. */
  previous: ReplayedRequest | undefined
  messages: MessageViews
}

/**
 * What the request a `request/digest` describes sent, rebuilt from the log: the header with its reason, the system
 * string cut into (named) sections, tools in order, messages with their sources and origin events, the runtime
 * context snapshot — and its diff against the previous request.
 */
export function requestView({ sessionId, events, row, current, previous, messages }: RequestViewInput): RequestView {
  const rebuilt = current.rebuilt
  if (rebuilt === undefined) {
    return {
      row,
      sessionId,
      header: { seq: -1, reason: '?', config: {} },
      system: { text: '', spans: [], named: false },
      tools: [],
      messages: [],
      error: current.verification.error ?? 'the request cannot be rebuilt from the log',
    }
  }
  const views = messages.ofRequest(current)
  const { spans, named } = spansOf(rebuilt)
  const snapshot = snapshotOf(rebuilt, views)
  const view: RequestView = {
    row,
    sessionId,
    header: {
      seq: rebuilt.headerSeq,
      reason: rebuilt.headerReason,
      config: { ...(rebuilt.header.config as unknown as Record<string, unknown>) },
    },
    ...(rebuilt.context ? { context: { ...rebuilt.context } } : {}),
    system: { text: rebuilt.header.system ?? '', spans, named },
    tools: (rebuilt.header.tools ?? []).map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.parameters,
    })),
    messages: views,
    ...(snapshot ? { snapshot } : {}),
    ...cacheOf(current.cache),
  }
  // the previous request cannot be rebuilt: its own view says why, and this one shows no diff
  if (previous?.rebuilt !== undefined) {
    const previousViews = messages.ofRequest(previous)
    view.diff = requestDiff({
      events,
      row: current.cache,
      previous: { seq: previous.seq, rebuilt: previous.rebuilt },
      current: rebuilt,
      spans: { previous: spansOf(previous.rebuilt).spans, current: spans },
      previousMessages: (i) => previousViews[i]!,
    })
  }
  return view
}

/** The placement a request carried and its predicted read, for the request page. */
function cacheOf(row: CachePrefixRow | undefined): Pick<RequestView, 'cache'> {
  const plan = row?.cachePlan
  if (plan === undefined) return {}
  return {
    cache: {
      policy: plan.policy,
      breakpoints: plan.breakpoints.map(describeBreakpoint),
      predicted: plan.predictedReadTokens,
      ...(row!.cachedInputTokens === undefined ? {} : { read: row!.cachedInputTokens }),
      ...(row!.cacheWriteTokens === undefined ? {} : { written: row!.cacheWriteTokens }),
      ...(plan.miss === undefined ? {} : { miss: describeCacheMiss(plan.miss) }),
    },
  }
}

/** A replayed request and the request its cache row compares it with, when the replay still holds that one. */
export interface ComparedRequest {
  current: ReplayedRequest
  previous: ReplayedRequest | undefined
}

/**
 * Every request of the log from one replay, each with the request its cache row names (`cache.previousSeq`: the
 * conversation request before it, since a summary request is never a baseline), which the replay still holds.
 */
export function* comparedRequests(events: readonly AnySessionEvent[]): Generator<ComparedRequest> {
  let conversation: ReplayedRequest | undefined
  for (const current of replayRequests(events)) {
    const previousSeq: number | undefined = current.cache.previousSeq
    const previous = previousSeq !== undefined && conversation?.seq === previousSeq ? conversation : undefined
    if (current.record.purpose !== 'compaction') conversation = current
    yield { current, previous }
  }
}

/**
 * Request views asked for one at a time (the viewer's server), from one replay kept open between them: views asked in
 * log order cost one replay in all, and only asking for a request before the last one asked starts the replay again.
 */
export class RequestViewCursor {
  private replay: Generator<ComparedRequest> | undefined
  /** The seq of the last request the open replay passed; -1 before the first. */
  private passed = -1
  private readonly messages: MessageViews

  constructor(
    private readonly sessionId: string,
    private readonly events: readonly AnySessionEvent[],
  ) {
    this.messages = new MessageViews(events)
  }

  /** The view of the request whose `request/digest` is at `seq`, shown with `row`; `undefined` when there is none. */
  view(seq: number, row: RequestRow): RequestView | undefined {
    if (this.replay === undefined || seq <= this.passed) {
      this.replay = comparedRequests(this.events)
      this.passed = -1
    }
    for (let next = this.replay.next(); !next.done; next = this.replay.next()) {
      const { current, previous } = next.value
      this.passed = current.seq
      if (current.seq === seq) {
        const { sessionId, events, messages } = this
        return requestView({ sessionId, events, row, current, previous, messages })
      }
      if (current.seq > seq) return undefined
    }
    return undefined
  }
}
