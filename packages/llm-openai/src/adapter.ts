/**
 * `OpenAICompatAdapter`: the `LlmAdapter` for one chat-completions route
 * (docs/model-calls.md#the-openai-compatible-adapter). Metadata comes from the config catalog without I/O; `stream()`
 * runs one logical call: credential, body, the request phase (SDK request, the kit's bounded retries), then the kit's
 * SSE reader and this package's delta translator. Every error leaving it is scrubbed of the key and the configured
 * header values, and the key is added to the process's secret filter when it is read
 * (docs/security.md#what-is-filtered).
 */
import { ProgressBudget, ResponseMeter, type GenerateOptions, type StreamChunk } from '@bridle/llm'
import {
  RouteAdapter,
  raceCall,
  readRouteKey,
  readSseEvents,
  realClock,
  redactCallError,
  routeSecrets,
  sdkRequestOptions,
  toCallError,
  withRetries,
  type FailedAnswerRecord,
  type RetryClock,
  type RouteCall,
} from '@bridle/llm/adapter-kit'
import { LlmError } from '@bridle/llm'
import type OpenAI from 'openai'
import { SDK_ERRORS, createClient } from './client.js'
import type { ModelEntry, OpenAICompatConfig } from './config.js'
import { httpError } from './http-errors.js'
import { parsePayload } from './payload.js'
import { buildRequestBody } from './serialize.js'
import { DeltaTranslator, movesAnswer } from './translate.js'

export class OpenAICompatAdapter extends RouteAdapter<ModelEntry, OpenAICompatConfig> {
  /** `clock` replaces the retry loop's sleep, jitter and time (tests observe waits without sleeping). */
  constructor(
    config: OpenAICompatConfig,
    private readonly clock: RetryClock = realClock,
  ) {
    super(config, { efforts: (m) => m.reasoningEfforts ?? [] })
  }

  /**
   * One logical provider attempt. Throws `LlmError`; `LlmRuntime` turns it into the `finish` chunk. Bounded in time
   * (idle, progress and total deadlines) and size (`maxResponseBytes`): docs/model-calls.md#bounds.
   */
  async *stream(options: GenerateOptions): AsyncGenerator<StreamChunk, void, undefined> {
    const config = this.config
    this.calls.assertOpen(options.signal)
    const apiKey = readRouteKey(config.apiKeyEnv)
    const body = buildRequestBody(options, config)
    const record: FailedAnswerRecord = {}
    const client = createClient(config, apiKey, record)
    const call = this.calls.start(options.signal, config.streamTotalTimeoutMs, config.baseURL)
    try {
      const response = await withRetries(
        (retryCount) => raceCall(requestStream(client, body, call.signal, retryCount), call.signal),
        { limits: config, signal: call.signal, sdk: SDK_ERRORS, clock: this.clock },
      )
      if (response.body === null) throw new LlmError(`empty response body from ${config.baseURL}`, 'EMPTY_RESPONSE')
      yield* this.read(response, call)
    } catch (error) {
      throw redactCallError(this.failure(error, call, record), routeSecrets(apiKey, config.headers))
    } finally {
      call.end()
    }
  }

  /** Reads and translates a 2xx answer's event stream up to `[DONE]`. */
  private async *read(response: Response, call: RouteCall): AsyncGenerator<StreamChunk, void, undefined> {
    const config = this.config
    const translator = new DeltaTranslator()
    const dataBudget = new ProgressBudget(config.streamDataTimeoutMs, config.baseURL)
    for await (const event of readSseEvents(response.body!, {
      idleTimeoutMs: config.streamIdleTimeoutMs,
      dataBudget,
      responseMeter: new ResponseMeter(config.maxResponseBytes, config.baseURL),
      maxLineBytes: config.maxLineBytes,
      contentType: response.headers.get('content-type') ?? '',
      baseURL: config.baseURL,
      signal: call.signal,
    })) {
      if (event.data.trim() === '[DONE]') {
        yield* translator.finish()
        return
      }
      const { payload, error } = parsePayload(event.event, event.data, config)
      const chunks = translator.push(payload)
      // only an event that moved the answer buys more time: empty deltas spend the budget like keep-alives
      if (movesAnswer(chunks, payload)) dataBudget.progress()
      yield* chunks
      if (error !== undefined) throw error
    }
    throw new LlmError(`event stream from ${config.baseURL} ended without [DONE]`, 'STREAM_CLOSED')
  }

  /** The one `LlmError` a failed call throws (before redaction); a non-2xx answer is read from the captured body. */
  private failure(error: unknown, call: RouteCall, record: FailedAnswerRecord): LlmError {
    const config = this.config
    return toCallError(error, {
      baseURL: config.baseURL,
      timeoutMs: config.timeoutMs,
      caller: call.caller,
      internal: call.internal,
      sdk: SDK_ERRORS,
      httpError: (answer) => {
        const captured = record.failure
        const text = captured?.status === answer.status ? captured.text : ''
        return httpError(answer.status, captured?.headers ?? answer.headers, text, config.displayName)
      },
    })
  }
}

function requestStream(
  client: OpenAI,
  body: Record<string, unknown>,
  signal: AbortSignal,
  retryCount: number,
): Promise<Response> {
  const params = body as unknown as OpenAI.ChatCompletionCreateParamsStreaming
  return client.chat.completions.create(params, sdkRequestOptions(signal, retryCount)).asResponse()
}
