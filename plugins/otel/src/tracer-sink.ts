/**
 * Span records into OpenTelemetry spans: each record becomes a span of the given tracer, started and ended at the
 * record's log times, under its parent's span. A turn is a trace of its own (its span is a root). A record whose
 * parent never became a span here — the turn was already running when this sink started listening — is skipped
 * with all its children, so a trace never starts in the middle of a turn.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes as OtelAttributes,
  type Context,
  type HrTime,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import type { Attributes, SpanRecord, SpanSink } from './records.js'

/** Milliseconds since the epoch as OpenTelemetry's `[seconds, nanoseconds]`, exactly (a log time may be any integer). */
export function hrTimeOf(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000)
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)]
}

export class TracerSink implements SpanSink {
  /** Each open span, and the context its children start in (made once: a turn has several children). */
  private readonly spans = new Map<SpanRecord, { readonly span: Span; context: Context | undefined }>()

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
    const span = this.tracer.startSpan(
      record.name,
      {
        kind: record.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: hrTimeOf(record.startTime),
        attributes: record.attributes as OtelAttributes,
        root: record.parent === undefined,
      },
      context,
    )
    this.spans.set(record, { span, context: undefined })
  }

  close(record: SpanRecord, added: Attributes): void {
    const open = this.spans.get(record)
    if (open === undefined) return
    this.spans.delete(record)
    const { span } = open
    span.setAttributes(added as OtelAttributes)
    if (record.status !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: record.status.message })
    span.end(hrTimeOf(record.endTime ?? record.startTime))
  }
}
