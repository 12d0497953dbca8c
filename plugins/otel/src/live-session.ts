/**
 * One session's fold fed live (docs/tracing.md#live): the events `session/event` reports are folded a step at a time —
 * when a step or a turn ends, everything appended since is folded in log order — so the fold and the SDK run in one
 * stretch per step rather than a little at every append. The spans are those the fold makes of the same events one by
 * one (their times and attributes come from the log), only handed to the SDK when their step ends.
 */
import type { AnySessionEvent } from '@bridle/session'
import type { FoldContext } from './chat-span.js'
import type { SpanSink } from './records.js'
import { SessionSpanFold, type UnfinishedReason } from './span-fold.js'

/** The events after which the fold catches up: a step's end makes the spans of that step, a turn's end the rest. */
const FOLD_AFTER = new Set(['step/end', 'turn/end'])

export class LiveSession {
  private readonly fold: SessionSpanFold
  /** Events heard and not yet folded, in log order. */
  private readonly heard: AnySessionEvent[] = []

  /**
   * A fold for a session first heard at `first`: its log before that event (`past`) is folded without a sink — its
   * state, not its spans, which belong to whoever heard those events live.
   */
  constructor(context: FoldContext, past: readonly AnySessionEvent[], first: AnySessionEvent) {
    this.fold = new SessionSpanFold(context)
    for (let i = 0; i < first.seq; i++) this.fold.push(past[i]!, undefined)
  }

  /** Takes the next event of the log; folds what was heard when it ends a step or a turn. Throws what the fold throws. */
  hear(event: AnySessionEvent, sink: SpanSink): void {
    this.heard.push(event)
    if (FOLD_AFTER.has(event.type)) this.catchUp(sink)
  }

  /** Folds what was heard, then ends the spans still open (`bridle.unfinished: reason`). */
  finish(reason: UnfinishedReason, sink: SpanSink): void {
    this.catchUp(sink)
    this.fold.finish(reason, sink)
  }

  private catchUp(sink: SpanSink): void {
    const heard = this.heard
    try {
      for (let i = 0; i < heard.length; i++) this.fold.push(heard[i]!, sink)
    } finally {
      heard.length = 0
    }
  }
}
