/**
 * Span records into OpenTelemetry spans: each record becomes a span of the given tracer, started and ended at the
 * record's log times, under its parent's span, with the record's attributes. A turn is a trace of its own (its span is
 * a root). A record whose parent this sink never saw open — the turn was already running when it started listening —
 * is skipped with all its children, so a trace never starts in the middle of a turn.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes as OtelAttributes,
  type AttributeValue as OtelAttributeValue,
  type Context,
  type HrTime,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import type { Attributes, SpanRecord, SpanSink } from './records.js'
import { GEN_AI } from './semconv.js'

/** Milliseconds since the epoch as OpenTelemetry's `[seconds, nanoseconds]`, exactly (a log time may be any integer). */
export function hrTimeOf(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000)
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)]
}

/**
 * The attributes a span is created with: those the GenAI conventions name as important for sampling decisions, to be
 * provided at span creation (a sampler sees them). The others are set when it ends: the SDK checks each attribute
 * passed at creation twice more than one set on the span.
 */
const AT_CREATION = [GEN_AI.operationName, GEN_AI.providerName, GEN_AI.requestModel] as const

/** A record the sink has seen open, and its span once made. */
interface Opened {
  readonly record: SpanRecord
  readonly parent: Opened | undefined
  span: Span | undefined
  /** The attributes its span was made with. */
  created: Attributes | undefined
  /** The context its children are created in (made once: a turn has several children). */
  context: Context | undefined
}

/**
 * Makes each span when it ends, complete — its log start time, its attributes, its status — and ends it at once; a
 * turn's span is made when its first child ends (the child needs its parent), else when it ends itself. So the SDK
 * runs once per span, in one stretch, and nothing a span records depends on when it was made.
 */
export class TracerSink implements SpanSink {
  private readonly opened = new Map<SpanRecord, Opened>()

  constructor(private readonly tracer: Tracer) {}

  /** Spans opened and not yet ended. */
  get openSpans(): number {
    return this.opened.size
  }

  open(record: SpanRecord): void {
    let parent: Opened | undefined
    if (record.parent !== undefined) {
      parent = this.opened.get(record.parent)
      if (parent === undefined) return
    }
    this.opened.set(record, { record, parent, span: undefined, created: undefined, context: undefined })
  }

  close(record: SpanRecord): void {
    const opened = this.opened.get(record)
    if (opened === undefined) return
    this.opened.delete(record)
    const span = this.make(opened)
    const attributes = record.attributes
    const created = opened.created!
    for (const key in attributes) {
      const value = attributes[key]!
      // one by one, and not those it was made with: the SDK counts a span's attributes again for each one it sets
      if (created[key] !== value) span.setAttribute(key, value as OtelAttributeValue)
    }
    if (record.status !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: record.status.message })
    span.end(hrTimeOf(record.endTime ?? record.startTime))
  }

  /** The record's span, made now (under its parent's, made first) if it was not yet. */
  private make(opened: Opened): Span {
    if (opened.span !== undefined) return opened.span
    let context = ROOT_CONTEXT
    const parent = opened.parent
    if (parent !== undefined) context = parent.context ??= trace.setSpan(ROOT_CONTEXT, this.make(parent))
    const { record } = opened
    const created: Attributes = {}
    for (const key of AT_CREATION) {
      const value = record.attributes[key]
      if (value !== undefined) created[key] = value
    }
    opened.created = created
    // a turn is made in the root context: its span is the root of a trace of its own
    opened.span = this.tracer.startSpan(
      record.name,
      {
        kind: record.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: hrTimeOf(record.startTime),
        attributes: created as OtelAttributes,
      },
      context,
    )
    return opened.span
  }
}
