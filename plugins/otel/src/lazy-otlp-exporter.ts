/**
 * The OTLP/HTTP exporter, loaded the first time it has spans to send: the exporter and its serializers (protobuf
 * included) take longer to import than the rest of this package, and an app that passes its own tracer provider, or
 * traces to the console, never needs them.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base'

export class LazyOtlpExporter implements SpanExporter {
  private exporter: Promise<SpanExporter> | undefined

  /** `config` goes to the exporter as it is (`{url}`, or nothing: the `OTEL_EXPORTER_OTLP_*` variables then). */
  constructor(private readonly config: { readonly url?: string } = {}) {}

  private load(): Promise<SpanExporter> {
    this.exporter ??= import('@opentelemetry/exporter-trace-otlp-http').then(
      ({ OTLPTraceExporter }) => new OTLPTraceExporter({ ...this.config }),
    )
    return this.exporter
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.load().then(
      (exporter) => exporter.export(spans, done),
      (error: unknown) =>
        done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) }),
    )
  }

  async forceFlush(): Promise<void> {
    if (this.exporter !== undefined) await (await this.exporter).forceFlush?.()
  }

  async shutdown(): Promise<void> {
    if (this.exporter !== undefined) await (await this.exporter).shutdown()
  }
}
