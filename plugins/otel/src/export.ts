/**
 * Spans after the fact: a stored session log through the same fold the live plugin uses (span-fold.ts), so the spans
 * of a session exported from its log equal the live ones apart from ids, with the recorded times. `bridle export`
 * is built on these functions.
 */
import type { TracerProvider } from '@opentelemetry/api'
import { ExportResultCode } from '@opentelemetry/core'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import type { AnySessionEvent } from '@bridle/session'
import { TRACER_NAME, TRACER_VERSION } from './instrumentation.js'
import { LazyOtlpExporter } from './lazy-otlp-exporter.js'
import { environmentResource } from './provider.js'
import { SessionSpanFold } from './span-fold.js'
import { TracerSink } from './tracer-sink.js'

export interface TraceLogOptions {
  /** Put message contents on the spans (redacted); off by default. */
  readonly content?: boolean
  /** Values to redact from contents and error messages. */
  readonly secrets?: readonly string[]
}

/**
 * Folds the whole stored log of session `sessionId` into spans of `provider`'s tracer, in log order. Spans of a turn
 * the log leaves open end at its last event, marked `bridle.unfinished: 'log-end'`.
 */
export function traceSessionLog(
  sessionId: string,
  events: readonly AnySessionEvent[],
  provider: TracerProvider,
  options: TraceLogOptions = {},
): void {
  const fold = new SessionSpanFold({
    sessionId,
    redaction: { secrets: options.secrets ?? [] },
    content: options.content ?? false,
  })
  const sink = new TracerSink(provider.getTracer(TRACER_NAME, TRACER_VERSION))
  for (const event of events) fold.push(event, sink)
  fold.finish('log-end', sink)
}

/**
 * The finished spans of a stored log, in the order they ended, from a provider of their own whose resource the
 * environment describes (`service.name`: `OTEL_SERVICE_NAME`, else `bridle`).
 */
export async function sessionLogSpans(
  sessionId: string,
  events: readonly AnySessionEvent[],
  options: TraceLogOptions = {},
): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: environmentResource(),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  traceSessionLog(sessionId, events, provider, options)
  await provider.forceFlush()
  const spans = exporter.getFinishedSpans()
  await provider.shutdown()
  return spans
}

/** `spans` as one OTLP/JSON `ExportTraceServiceRequest` (what an OTLP/HTTP receiver accepts at `/v1/traces`). */
export async function otlpJson(spans: readonly ReadableSpan[]): Promise<Uint8Array> {
  const { JsonTraceSerializer } = await import('@opentelemetry/otlp-transformer')
  const bytes = JsonTraceSerializer.serializeRequest([...spans])
  if (bytes === undefined) throw new Error('the spans could not be serialized as OTLP/JSON')
  return bytes
}

/** The traces URL of an OTLP/HTTP endpoint: a URL with no path gets `/v1/traces`; any other is taken as it is. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint)
  if (url.pathname === '' || url.pathname === '/') url.pathname = '/v1/traces'
  return url.href
}

/**
 * The traces URL the standard variables name: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` appended, else `http://localhost:4318/v1/traces`.
 */
export function tracesUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
  if (traces) return traces
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  if (base) return `${base.replace(/\/+$/, '')}/v1/traces`
  return 'http://localhost:4318/v1/traces'
}

/** How many spans go into one OTLP request. */
export const SPANS_PER_REQUEST = 512

/**
 * Sends `spans` to the OTLP/HTTP receiver at `url` (the full traces URL) as OTLP/JSON, `SPANS_PER_REQUEST` at a
 * time, with the headers and timeout the `OTEL_EXPORTER_OTLP_*` variables set. Rejects with the exporter's error when
 * a request fails (after the exporter's own retries).
 */
export async function sendOtlp(spans: readonly ReadableSpan[], url: string = tracesUrlFromEnv()): Promise<void> {
  const exporter = new LazyOtlpExporter({ url })
  try {
    for (let at = 0; at < spans.length; at += SPANS_PER_REQUEST) {
      const batch = spans.slice(at, at + SPANS_PER_REQUEST)
      await new Promise<void>((resolve, reject) => {
        exporter.export(batch, (result) => {
          if (result.code === ExportResultCode.SUCCESS) resolve()
          else reject(result.error ?? new Error('the OTLP export failed'))
        })
      })
    }
  } finally {
    await exporter.shutdown()
  }
}
