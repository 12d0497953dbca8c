import type { Message } from '@bridle/llm'
import {
  deriveEventMessage,
  foldSurface,
  isReplacementSurfaceEvent,
  type AnySessionEvent,
  type CachePrefixRow,
  type ReconstructedRequest,
} from '@bridle/session'
import type { MessageView, RequestRow, RequestView } from '../types.js'
import { messageView, plainText } from './describe.js'
import { requestDiff } from './diff.js'
import { rebuildDigested } from './prompt-text.js'
import { systemSpans } from './sections.js'

/** The messages of a rebuilt request, each with the surface event that put it there. */
function messagesWithOrigins(events: readonly AnySessionEvent[], rebuilt: ReconstructedRequest): MessageView[] {
  const prefix = events.slice(0, rebuilt.cutSeq)
  const origins: AnySessionEvent[] = []
  for (const seq of foldSurface(prefix).nodes) {
    if (deriveEventMessage(prefix[seq]!) !== null) origins.push(prefix[seq]!)
  }
  return rebuilt.messages.map((message, i) => {
    const origin = origins[i]
    // the fold and the rebuild walk the same nodes; a mismatch would mean a different log, so show no origin
    const same = origin !== undefined && deriveEventMessage(origin) === message
    return messageView(
      message,
      same ? { seq: origin.seq, type: origin.type, replacement: isReplacementSurfaceEvent(origin) } : undefined,
    )
  })
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
  /** Its `cachePrefixReport` row, which names why the prefix broke. */
  cacheRow: CachePrefixRow | undefined
}

/**
 * What the request a `request/digest` describes sent, rebuilt from the log: the header with its reason, the system
 * string cut into (named) sections, tools in order, messages with their sources and origin events, the runtime
 * context snapshot — and its diff against the previous request.
 */
export function requestView({ sessionId, events, row, cacheRow }: RequestViewInput): RequestView {
  let rebuilt: ReconstructedRequest
  try {
    rebuilt = rebuildDigested(events, row.seq)
  } catch (error) {
    return {
      row,
      sessionId,
      header: { seq: -1, reason: '?', config: {} },
      system: { text: '', spans: [], named: false },
      tools: [],
      messages: [],
      error: error instanceof Error ? error.message : String(error),
    }
  }
  const messages = messagesWithOrigins(events, rebuilt)
  const { spans, named } = spansOf(rebuilt)
  const snapshot = snapshotOf(rebuilt, messages)
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
    messages,
    ...(snapshot ? { snapshot } : {}),
  }

  // the report picks the request to compare with; a log it cannot read falls back to the digest before
  const previousSeq = cacheRow ? cacheRow.previousSeq : previousDigest(events, row.seq)
  if (previousSeq !== undefined) {
    try {
      const previous = rebuildDigested(events, previousSeq)
      const previousViews = messagesWithOrigins(events, previous)
      view.diff = requestDiff({
        events,
        row: cacheRow,
        previous: { seq: previousSeq, rebuilt: previous },
        current: rebuilt,
        spans: { previous: spansOf(previous).spans, current: spans },
        previousMessages: (i) => previousViews[i]!,
      })
    } catch {
      // the previous request cannot be rebuilt; its own view says why, and this one shows no diff
    }
  }
  return view
}

/** Seq of the `request/digest` before `seq`, the request a diff compares with (as `cachePrefixReport` does). */
export function previousDigest(events: readonly AnySessionEvent[], seq: number): number | undefined {
  for (let i = seq - 1; i >= 0; i--) if (events[i]!.type === 'request/digest') return i
  return undefined
}
