export { OtelTracing, secretsOf } from './plugin.js'
export { OtelTracing as default } from './plugin.js'
export { Config, ConfigSchema, DEFAULT_SECRET_ENV, type OtelConfig, type OtelConfigInput } from './config.js'
export { TRACER_NAME, TRACER_VERSION } from './instrumentation.js'
export { SessionSpanFold, type UnfinishedReason } from './span-fold.js'
export type { FoldContext } from './chat-span.js'
export type { ContentCapture } from './content.js'
export type { Attributes, AttributeValue, SpanKindName, SpanRecord, SpanSink } from './records.js'
export { TracerSink, hrTimeOf } from './tracer-sink.js'
export { exportersFromEnv, tracerProviderFromEnv, environmentResource, type ExporterKind } from './provider.js'
export {
  traceSessionLog,
  sessionLogSpans,
  otlpJson,
  sendOtlp,
  tracesUrl,
  tracesUrlFromEnv,
  SPANS_PER_REQUEST,
  type TraceLogOptions,
} from './export.js'
export { GEN_AI, OPERATION, BRIDLE, ERROR_TYPE, HTTP_RESPONSE_STATUS_CODE } from './semconv.js'
