/**
 * `OpenAICompatAdapter`: the `LlmAdapter` for one chat-completions route
 * (docs/model-calls.md#the-openai-compatible-adapter). Metadata comes from the config catalog without I/O; `stream()`
 * runs one logical call: credential, body, the request phase (SDK request, the kit's bounded retries), then the kit's
 * bounded SSE reader and this package's delta translator. Every error leaving it is scrubbed of the key and the
 * configured header values, and the key is added to the process's secret filter when it is read
 * (docs/security.md#what-is-filtered).
 */
import { LlmError, type GenerateOptions, type StreamChunk } from '@bridle/llm'
import {
  RouteAdapter,
  readRouteKey,
  routeSecrets,
  type FailedAnswerRecord,
  type ModelCall,
  type RetryClock,
} from '@bridle/llm/adapter-kit'
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
    private readonly clock?: RetryClock,
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
    const params = buildRequestBody(options, config) as unknown as OpenAI.ChatCompletionCreateParamsStreaming
    const record: FailedAnswerRecord = {}
    const client = createClient(config, apiKey, record)
    const secrets = routeSecrets(apiKey, config.headers)
    const call = this.calls.start(options.signal, { config, sdk: SDK_ERRORS, clock: this.clock, secrets })
    try {
      const response = await call.request((o) => client.chat.completions.create(params, o).asResponse())
      yield* this.read(response, call)
    } catch (error) {
      throw call.failure(error, (answer) => {
        // the SDK keeps only `body.error`: classify by the body the fetch captured
        const captured = record.failure?.status === answer.status ? record.failure : undefined
        return httpError(answer.status, captured?.headers ?? answer.headers, captured?.text ?? '', config.displayName)
      })
    } finally {
      call.end()
    }
  }

  /** Reads and translates a 2xx answer's event stream up to `[DONE]`. */
  private async *read(response: Response, call: ModelCall): AsyncGenerator<StreamChunk, void, undefined> {
    const config = this.config
    const translator = new DeltaTranslator()
    const events = call.readEvents(response.body, { contentType: response.headers.get('content-type') ?? '' })
    for await (const event of events) {
      if (event.data.trim() === '[DONE]') {
        yield* translator.finish()
        return
      }
      const { payload, error } = parsePayload(event.event, event.data, config)
      const chunks = translator.push(payload)
      // only an event that moved the answer buys more time: empty deltas spend the budget like keep-alives
      if (movesAnswer(chunks, payload)) events.progress()
      yield* chunks
      if (error !== undefined) throw error
    }
    throw new LlmError(`event stream from ${config.baseURL} ended without [DONE]`, 'STREAM_CLOSED')
  }
}
