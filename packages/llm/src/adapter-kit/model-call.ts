/**
 * One running model call of a route (docs/model-calls.md#the-adapter-kit): its signal — the caller's joined with an
 * internal one that the route's `dispose()` and the total deadline abort — the request phase through the SDK with
 * the kit's retries, the body read as bounded Server-Sent Events, and the one redacted `LlmError` it fails with. The
 * adapter supplies only its wire: the SDK request, the event translation and its provider's error bodies.
 */
import { ProgressBudget, ResponseMeter } from '../call-bounds.js'
import { LlmError } from '../errors.js'
import { raceCall } from './call-abort.js'
import { redactCallError, toCallError } from './call-errors.js'
import { withRetries, type RetryClock } from './retries.js'
import type { CallBoundsConfig } from './route-fields.js'
import { sdkRequestOptions, type SdkErrorClasses, type SdkHttpError } from './sdk.js'
import { readSseEvents, type SseEvent } from './sse-reader.js'

/** What a call needs to know of its route. */
export interface CallSetup {
  /** The route's bounds, and the server it calls (named in messages). */
  readonly config: CallBoundsConfig & { readonly baseURL: string }
  /** The SDK whose errors the retries and the catch ladder read. */
  readonly sdk: SdkErrorClasses
  /** Replaces the retry wait's timer, jitter and time (tests). */
  readonly clock?: RetryClock | undefined
  /** What no error message may show: the key the call sends, the configured header values. */
  readonly secrets: readonly string[]
  /** Error messages are cut to this length, after redaction. */
  readonly maxMessageChars?: number | undefined
}

/** The options of one SDK request attempt (`sdkRequestOptions`). */
export type SdkRequestOptions = ReturnType<typeof sdkRequestOptions>

/** A response body's events, and the call's wait for progress. */
export interface CallEvents extends AsyncIterable<SseEvent> {
  /** The last event moved the answer (a token, a stop reason, usage): the whole `streamDataTimeoutMs` again. */
  progress(): void
}

export class ModelCall {
  /** The signal every wait of the call races: the caller's and the internal one. */
  readonly signal: AbortSignal

  /** `internal` is aborted with an `LlmError` reason by the route's `dispose()` and by the total deadline. */
  constructor(
    readonly caller: AbortSignal | undefined,
    readonly internal: AbortSignal,
    private readonly setup: CallSetup,
    private readonly onEnd: () => void,
  ) {
    this.signal = caller === undefined ? internal : AbortSignal.any([caller, internal])
  }

  /**
   * The request phase: `attempt` sends one request through the SDK with the options it is given; failures the SDKs
   * retry are retried here, before the first chunk, within `maxRetries` and `maxRetryDelayMs`; every attempt and
   * every wait ends when the call's signal aborts.
   */
  request<T>(attempt: (options: SdkRequestOptions) => Promise<T>): Promise<T> {
    const { config, sdk, clock } = this.setup
    return withRetries((retry) => raceCall(attempt(sdkRequestOptions(this.signal, retry)), this.signal), {
      limits: config,
      signal: this.signal,
      sdk,
      ...(clock === undefined ? {} : { clock }),
    })
  }

  /**
   * The events of a 2xx answer's body, within the call's bounds (idle, progress, bytes, line size); with
   * `contentType`, an answer that is not an event stream at all is named by its opening. A missing body is
   * `EMPTY_RESPONSE`.
   */
  readEvents(body: ReadableStream<Uint8Array> | null, options: { contentType?: string } = {}): CallEvents {
    const { config } = this.setup
    if (body === null) throw new LlmError(`empty response body from ${config.baseURL}`, 'EMPTY_RESPONSE')
    const dataBudget = new ProgressBudget(config.streamDataTimeoutMs, config.baseURL)
    const events = readSseEvents(body, {
      idleTimeoutMs: config.streamIdleTimeoutMs,
      dataBudget,
      responseMeter: new ResponseMeter(config.maxResponseBytes, config.baseURL),
      maxLineBytes: config.maxLineBytes,
      ...(options.contentType === undefined ? {} : { contentType: options.contentType }),
      baseURL: config.baseURL,
      signal: this.signal,
    })
    return { [Symbol.asyncIterator]: () => events, progress: () => dataBudget.progress() }
  }

  /**
   * The one `LlmError` the call throws for `error`: the catch ladder's (`httpError` reads a non-2xx answer), with
   * every known secret and the call's own redacted from it, then cut.
   */
  failure(error: unknown, httpError: (answer: SdkHttpError) => LlmError): LlmError {
    const { config, sdk, secrets, maxMessageChars } = this.setup
    const failure = toCallError(error, {
      baseURL: config.baseURL,
      timeoutMs: config.timeoutMs,
      caller: this.caller,
      internal: this.internal,
      sdk,
      httpError,
    })
    return redactCallError(failure, secrets, maxMessageChars)
  }

  /** Ends the call however it ended: clears its deadline and closes what is still open. Idempotent. */
  end(): void {
    this.onEnd()
  }
}
