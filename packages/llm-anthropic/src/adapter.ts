/**
 * `AnthropicAdapter`: the `LlmAdapter` for one Messages API route (docs/model-calls.md#the-anthropic-adapter).
 * Metadata comes from the config catalog without I/O; `stream()` runs one logical call: credential, body, the
 * request phase (SDK request, the kit's bounded retries), then the kit's bounded SSE reader and this package's event
 * translator. The key is added to the process's secret filter when it is read (docs/security.md#what-is-filtered),
 * and every error leaving the adapter is scrubbed of it and of the configured header values.
 */
import type Anthropic from '@anthropic-ai/sdk'
import {
  LlmError,
  isRecord,
  type CachePlan,
  type CachePlanInput,
  type GenerateOptions,
  type StreamChunk,
} from '@bridle/llm'
import {
  RouteAdapter,
  SNIPPET_BYTES,
  contentTypeLabel,
  isEventStreamType,
  isJsonType,
  malformedEventError,
  notEventStreamError,
  raceCall,
  readCappedText,
  readRouteKey,
  routeSecrets,
  type ModelCall,
  type RetryClock,
} from '@bridle/llm/adapter-kit'
import { placeBreakpoints } from './cache/policy.js'
import { SDK_ERRORS, createClient } from './client.js'
import {
  FALLBACK_MAX_TOKENS,
  FALLBACK_MIN_CACHEABLE_TOKENS,
  effortsOf,
  type AnthropicConfig,
  type ModelEntry,
} from './config.js'
import { MAX_MESSAGE_CHARS, httpError, streamErrorEvent } from './failures.js'
import { buildRequestBody } from './serialize.js'
import { MessagesTranslator } from './translate.js'

export class AnthropicAdapter extends RouteAdapter<ModelEntry, AnthropicConfig> {
  /**
   * `clock` replaces the retry loop's sleep, jitter and time (tests observe waits without sleeping). An unlisted
   * model resolves with a 4096-token output default: the Messages API requires `max_tokens`, and the header should
   * record what was sent.
   */
  constructor(
    config: AnthropicConfig,
    private readonly clock?: RetryClock,
  ) {
    super(config, { efforts: (m) => effortsOf(m.thinking), fallbackMaxTokens: FALLBACK_MAX_TOKENS })
  }

  /**
   * Places the prompt-cache breakpoints of a request about to be built (README.md#prompt-caching); `undefined` with
   * `cachePolicy: 'none'`. Pure and synchronous: the loop records the plan in the log before it freezes the request.
   */
  planCache(input: CachePlanInput): CachePlan | undefined {
    if (this.config.cachePolicy === 'none') return undefined
    const entry = this.config.models.find((m) => m.id === input.request.model)
    return placeBreakpoints(input, {
      minTokens: entry?.minCacheableTokens ?? FALLBACK_MIN_CACHEABLE_TOKENS,
      stableTtl: this.config.cacheTtl,
    })
  }

  /**
   * One logical provider attempt. Throws `LlmError`; `LlmRuntime` turns it into the `finish` chunk. Bounded in time
   * (idle, progress and total deadlines) and size (`maxResponseBytes`): docs/model-calls.md#bounds.
   */
  async *stream(options: GenerateOptions): AsyncGenerator<StreamChunk, void, undefined> {
    const config = this.config
    this.calls.assertOpen(options.signal)
    const apiKey = readRouteKey(config.apiKeyEnv)
    const params = buildRequestBody(options, config) as unknown as Anthropic.MessageCreateParamsStreaming
    const client = createClient(config, apiKey)
    const call = this.calls.start(options.signal, {
      config,
      sdk: SDK_ERRORS,
      clock: this.clock,
      secrets: routeSecrets(apiKey, config.headers),
      maxMessageChars: MAX_MESSAGE_CHARS,
    })
    try {
      const response = await call.request((o) => client.messages.create(params, o).asResponse())
      yield* this.read(response, call)
    } catch (error) {
      throw call.failure(error, (answer) =>
        httpError(answer.status, answer.headers, answer.error ?? answer.message, config.displayName),
      )
    } finally {
      call.end()
    }
  }

  /** Reads and translates a 2xx answer's event stream up to `message_stop`. */
  private async *read(response: Response, call: ModelCall): AsyncGenerator<StreamChunk, void, undefined> {
    const config = this.config
    const contentType = response.headers.get('content-type') ?? ''
    if (isJsonType(contentType)) {
      // the server ignored `stream: true`: say so with the opening of what it sent
      const text = await raceCall(readCappedText(response.body, SNIPPET_BYTES), call.signal)
      throw notEventStreamError(config.baseURL, contentType, text)
    }
    const events = call.readEvents(response.body)
    const translator = new MessagesTranslator(config.displayName)
    for await (const event of events) {
      const result = translator.push(parsePayload(event.event, event.data, config))
      // only an event that moved the answer buys more time: `ping`s and empty deltas spend the budget
      if (result.progress) events.progress()
      yield* result.chunks
      if (result.done) return
    }
    if (!translator.hasStarted && !isEventStreamType(contentType)) {
      // nothing of a Messages stream came back: a proxy's page, a login form — say what it was labeled
      throw new LlmError(
        `response from ${config.baseURL} is not an event stream (content-type ${contentTypeLabel(contentType)})`,
        'MALFORMED_RESPONSE',
      )
    }
    throw new LlmError(`event stream from ${config.baseURL} ended before message_stop`, 'STREAM_CLOSED')
  }
}

/** One event's data → a payload object; `error` events and error payloads throw their classified error. */
function parsePayload(event: string | undefined, data: string, config: AnthropicConfig): Record<string, unknown> {
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    if (event === 'error') throw streamErrorEvent(data, config.displayName)
    throw malformedEventError(config.baseURL, data)
  }
  if (event === 'error' || (isRecord(json) && json.type === 'error')) throw streamErrorEvent(json, config.displayName)
  if (!isRecord(json) || typeof json.type !== 'string') throw malformedEventError(config.baseURL, data)
  return json
}
