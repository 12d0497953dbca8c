/**
 * The span records the fold makes from a session log (span-fold.ts) and the sink they go to. A record is plain data
 * with the log's timestamps, so the spans of a live session and of its stored log can be compared record for record;
 * `TracerSink` (tracer-sink.ts) turns them into OpenTelemetry spans.
 */

/** An attribute value as OpenTelemetry takes it. */
export type AttributeValue = string | number | boolean | readonly string[] | readonly number[] | readonly boolean[]

export type Attributes = Record<string, AttributeValue>

/** `internal` for the agent's own work (turns, tool calls), `client` for a model request. */
export type SpanKindName = 'internal' | 'client'

export interface SpanRecord {
  /** The enclosing span (a turn's, for a model request or a tool call); `undefined` for a turn. */
  readonly parent: SpanRecord | undefined
  readonly name: string
  readonly kind: SpanKindName
  /** Milliseconds since the epoch: the `time` of the event that opened the span. */
  readonly startTime: number
  /** Milliseconds since the epoch, set when the span closes: the `time` of the event that ended it. */
  endTime: number | undefined
  /** Every attribute so far: those it opened with, then those it closed with. */
  readonly attributes: Attributes
  /** Set for a failed turn, model request or tool call. */
  status: { readonly code: 'error'; readonly message: string } | undefined
}

/** Where the fold sends spans as the log opens and closes them. */
export interface SpanSink {
  /** A span began; `record.attributes` holds the attributes it opens with. */
  open(record: SpanRecord): void
  /** The span ended: `endTime`, `status` and every attribute it gained are set on the record. */
  close(record: SpanRecord): void
}
