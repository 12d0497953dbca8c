/**
 * `@bridle/llm/adapter-kit`: what the adapters of streaming HTTP model APIs share (docs/model-calls.md#the-adapter-kit),
 * so each rule of a model call lives in one place: the route's shared config fields, its catalog metadata and calls in
 * flight, its key, the request phase's retries, the catch ladder, the bounded Server-Sent Events reader and the
 * bounded read of a failed answer. An adapter keeps only its wire: the request body, the event translation and the
 * provider's error bodies. The call bounds themselves (`ProgressBudget`, `ResponseMeter`, …) are in `@bridle/llm`.
 */
export { callAbortError, raceCall, abortableSleep } from './adapter-kit/call-abort.js'
export {
  startDeadline,
  guardedRead,
  type Deadline,
  type ReadResult,
  type GuardedReadOptions,
} from './adapter-kit/read-guard.js'
export { LineMeter, DEFAULT_MAX_LINE_BYTES, type LineOverflow } from './adapter-kit/line-meter.js'
export { readSseEvents, type SseEvent, type EventReaderOptions } from './adapter-kit/sse-reader.js'
export {
  sniffOpening,
  snippetOf,
  notEventStreamError,
  malformedEventError,
  isEventStreamType,
  isJsonType,
  contentTypeLabel,
  SNIFF_LIMIT_BYTES,
  SNIPPET_BYTES,
  type SniffVerdict,
} from './adapter-kit/stream-sniff.js'
export { requestedWaitMs, retryAfterMs } from './adapter-kit/retry-after.js'
export { inStreamFailureCode } from './adapter-kit/stream-failure.js'
export {
  sdkHttpError,
  sdkRequestOptions,
  type SdkErrorClass,
  type SdkErrorClasses,
  type SdkApiError,
  type SdkHttpError,
} from './adapter-kit/sdk.js'
export {
  withRetries,
  realClock,
  type RetryClock,
  type RetryLimits,
  type RetryContext,
} from './adapter-kit/retries.js'
export {
  toCallError,
  redactCallError,
  withCause,
  rootCause,
  type CallErrorContext,
} from './adapter-kit/call-errors.js'
export {
  capturingFetch,
  readCappedText,
  MAX_ERROR_BODY_BYTES,
  type FailedAnswerRecord,
} from './adapter-kit/error-body.js'
export { RouteCalls } from './adapter-kit/route-calls.js'
export {
  ModelCall,
  type CallSetup,
  type CallEvents,
  type SdkRequestOptions,
} from './adapter-kit/model-call.js'
export { RouteAdapter, type CatalogModel, type CatalogRoute, type CatalogRules } from './adapter-kit/route-adapter.js'
export { readRouteKey, routeSecrets } from './adapter-kit/route-key.js'
export { registerRoute, routePlugin, type RouteCredentials } from './adapter-kit/route-plugin.js'
export {
  MAX_TIMER_MS,
  ROUTE_HEADERS,
  ROUTE_BODY_KEYS,
  routeHeaders,
  routeBodyKeys,
  nonEmptyString,
  routeNameField,
  envVarNameField,
  baseUrlField,
  baseUrlProblem,
  headersField,
  extraBodyField,
  catalogModelShape,
  callBoundsShape,
  callBoundsOf,
  type CallBoundsConfig,
} from './adapter-kit/route-fields.js'
export {
  routeShape,
  routeSchema,
  catalogModel,
  checkRoute,
  resolveRoute,
  parseRoute,
  type KeyVariable,
  type RouteSchemaOptions,
  type ParsedRoute,
  type HomeRoute,
  type ResolvedRoute,
} from './adapter-kit/route-config.js'
