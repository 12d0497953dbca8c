/**
 * Span records into OpenTelemetry spans: each record becomes a span of the given tracer, started and ended at the
 * record's log times, under its parent's span, with the record's attributes. A turn is a trace of its own (its span is a root). A record whose
 * parent never became a span here — the turn was already running when this sink started listening — is skipped
 * with all its children, so a trace never starts in the middle of a turn.
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
 * The attributes a span starts with: those the GenAI conventions name as important for sampling decisions, to be
 * provided at span creation (a sampler sees them). Every other attribute is set when the span ends — the SDK checks
 * each attribute passed at creation twice more than one set later, and the spans' times come from the log anyway.
 */
const AT_START = [GEN_AI.operationName, GEN_AI.providerName, GEN_AI.requestModel] as const

interface OpenSpan {
  readonly span: Span
  /** The attributes it started with. */
  readonly started: Attributes
  /** The context its children start in (made once: a turn has several children). */
  context: Context | undefined
}

export class TracerSink implements SpanSink {
  private readonly spans = new Map<SpanRecord, OpenSpan>()

  constructor(private readonly tracer: Tracer) {}

  /** Spans started and not yet ended. */
  get openSpans(): number {
    return this.spans.size
  }

  open(record: SpanRecord): void {
    let context = ROOT_CONTEXT
    if (record.parent !== undefined) {
      const parent = this.spans.get(record.parent)
      if (parent === undefined) return
      context = parent.context ??= trace.setSpan(ROOT_CONTEXT, parent.span)
    }
    const started: Attributes = {}
    for (const key of AT_START) {
      const value = record.attributes[key]
      if (value !== undefined) started[key] = value
    }
    // a turn starts in the root context, so its span is the root of a trace of its own
    const span = this.tracer.startSpan(
      record.name,
      {
        kind: record.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: hrTimeOf(record.startTime),
        attributes: started as OtelAttributes,
      },
      context,
    )
    this.spans.set(record, { span, started, context: undefined })
  }

  close(record: SpanRecord): void {
    const open = this.spans.get(record)
    if (open === undefined) return
    this.spans.delete(record)
    const { span, started } = open
    const attributes = record.attributes
    for (const key in attributes) {
      const value = attributes[key]!
      if (started[key] !== value) span.setAttribute(key, value as OtelAttributeValue)
    }
    if (record.status !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: record.status.message })
    span.end(hrTimeOf(record.endTime ?? record.startTime))
  }
}
