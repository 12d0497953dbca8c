/**
 * `AnthropicAdapter`: the `LlmAdapter` for one Messages API route (docs/model-calls.md#the-anthropic-adapter).
 * Metadata comes from the config catalog without I/O; `stream()` runs one logical call: credential, body, the
 * request phase (SDK request, our bounded retries), then our own bounded SSE reader and event translator. Every
 * error leaving it is scrubbed of the key and the configured header values.
 */
import type Anthropic from '@anthropic-ai/sdk'
import {
  LlmError,
  assertUsableApiKey,
  isRecord,
  reasoningEffortId,
  type CachePlan,
  type CachePlanInput,
  type GenerateOptions,
  type LlmAdapter,
  type LlmModelInfo,
  type StreamChunk,
} from '@bridle/llm'
import { createClient } from './client.js'
import { placeBreakpoints } from './cache/policy.js'
import { FALLBACK_MAX_TOKENS, FALLBACK_MIN_CACHEABLE_TOKENS, effortsOf, type AnthropicConfig } from './config.js'
import { raceCall, startDeadline } from './deadlines.js'
import { EventReader } from './event-reader.js'
import { scrubbed, streamErrorEvent, toLlmError } from './failures.js'
import { realClock, withRetries, type RetryClock } from './retries.js'
import { buildRequestBody } from './serialize.js'
import { MessagesTranslator } from './translate.js'

const MALFORMED_PREVIEW_CHARS = 120

export class AnthropicAdapter implements LlmAdapter {
  /** Internal controllers of the calls in flight, aborted by `dispose()`. */
  private readonly calls = new Set<AbortController>()
  private disposed: LlmError | undefined

  /** `clock` replaces the retry loop's sleep, jitter and time (tests observe waits without sleeping). */
  constructor(
    readonly config: AnthropicConfig,
    private readonly clock: RetryClock = realClock,
  ) {}

  /** `{id: provider, name: displayName}`. */
  providerInfo(provider: string): { id: string; name: string } {
    return { id: provider, name: this.config.displayName }
  }

  /** One entry per catalog row, in config order. */
  listModels(provider: string): LlmModelInfo[] {
    return this.config.models.map((m) => ({
      provider,
      id: m.id,
      name: m.name ?? m.id,
      ...(m.description === undefined ? {} : { description: m.description }),
    }))
  }

  /**
   * Catalog facts for a listed model. An unlisted id resolves to `{provider, id, name}` with a 4096-token output
   * default, because the Messages API requires `max_tokens` and the header should record what was sent.
   */
  resolveModel(provider: string, model: string): LlmModelInfo {
    const m = this.config.models.find((entry) => entry.id === model)
    if (m === undefined) return { provider, id: model, name: model, defaultMaxTokens: FALLBACK_MAX_TOKENS }
    const efforts = effortsOf(m.thinking)
    return {
      provider,
      id: m.id,
      name: m.name ?? m.id,
      ...(m.description === undefined ? {} : { description: m.description }),
      context: { contextWindow: m.contextWindow },
      defaultMaxTokens: m.defaultMaxTokens ?? FALLBACK_MAX_TOKENS,
      ...(efforts.length === 0
        ? {}
        : {
            reasoning: {
              efforts: efforts.map((id) => ({ id: reasoningEffortId(id), name: id })),
              ...(m.defaultReasoningEffort === undefined
                ? {}
                : { defaultEffort: reasoningEffortId(m.defaultReasoningEffort) }),
            },
          }),
    }
  }

  /** The runtime default applies; the request phase's own retries are transport-level and independent. */
  retryPolicy(): undefined {
    return undefined
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

  /** Ends every call in flight with `ABORTED` (the route was disposed); later calls fail the same way. */
  dispose(): void {
    this.disposed ??= new LlmError(`request aborted: the ${this.config.provider} route was disposed`, 'ABORTED')
    for (const call of this.calls) call.abort(this.disposed)
    this.calls.clear()
  }

  /** One logical provider attempt. Throws `LlmError`; `LlmRuntime` turns it into the `finish` chunk. */
  async *stream(options: GenerateOptions): AsyncGenerator<StreamChunk, void, undefined> {
    const config = this.config
    if (options.signal?.aborted === true) throw new LlmError('request aborted', 'ABORTED')
    if (this.disposed !== undefined) throw this.disposed
    const apiKey = this.readApiKey()
    const body = buildRequestBody(options, config)
    const internal = new AbortController()
    const signal = options.signal === undefined ? internal.signal : AbortSignal.any([options.signal, internal.signal])
    const total = startDeadline(
      config.streamTotalTimeoutMs,
      () =>
        new LlmError(
          `response from ${config.baseURL} took longer than ${config.streamTotalTimeoutMs}ms (streamTotalTimeoutMs)`,
          'TIMEOUT',
        ),
    )
    const client = createClient(config, apiKey)
    this.calls.add(internal)
    try {
      const response = await withRetries(
        (retry) => raceCall(requestStream(client, body, signal, retry), signal, total),
        config,
        signal,
        this.clock,
      )
      const contentType = response.headers.get('content-type') ?? ''
      if (contentType.toLowerCase().includes('application/json')) {
        const text = (await raceCall(response.text(), signal, total)).slice(0, MALFORMED_PREVIEW_CHARS)
        throw new LlmError(
          `expected an event stream from ${config.baseURL}, got application/json: ${text}`,
          'MALFORMED_RESPONSE',
        )
      }
      if (response.body === null) throw new LlmError(`empty response body from ${config.baseURL}`, 'EMPTY_RESPONSE')
      const reader = new EventReader(response.body, {
        idleTimeoutMs: config.streamIdleTimeoutMs,
        dataTimeoutMs: config.streamDataTimeoutMs,
        total,
        maxResponseBytes: config.maxResponseBytes,
        maxLineBytes: config.maxLineBytes,
        baseURL: config.baseURL,
        signal,
      })
      const translator = new MessagesTranslator(config.displayName)
      for await (const event of reader.events()) {
        const result = translator.push(parsePayload(event.event, event.data, config))
        if (result.progress) reader.progress()
        yield* result.chunks
        if (result.done) return
      }
      if (!translator.hasStarted && !contentType.toLowerCase().includes('text/event-stream')) {
        // nothing of a Messages stream came back: a proxy's page, a login form — say what it was labeled
        const type = contentType.replace(/\s+/g, ' ').trim().slice(0, 80) || 'none'
        throw new LlmError(
          `response from ${config.baseURL} is not an event stream (content-type ${type})`,
          'MALFORMED_RESPONSE',
        )
      }
      throw new LlmError(`event stream from ${config.baseURL} ended before message_stop`, 'STREAM_CLOSED')
    } catch (error) {
      const ladder = {
        baseURL: config.baseURL,
        displayName: config.displayName,
        timeoutMs: config.timeoutMs,
        internal: internal.signal,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }
      throw scrubbed(toLlmError(error, ladder), [apiKey, ...Object.values(config.headers)])
    } finally {
      total.clear()
      this.calls.delete(internal)
      internal.abort()
    }
  }

  /** Reads the key now (not at load); throws a credential error naming the variable, never the value. */
  private readApiKey(): string {
    const name = this.config.apiKeyEnv
    const raw = process.env[name]
    if (raw === undefined || raw === '') {
      throw new LlmError(`no API key: environment variable ${name} is not set`, 'MISSING_CREDENTIAL')
    }
    return assertUsableApiKey(raw, name)
  }
}

function requestStream(
  client: Anthropic,
  body: Record<string, unknown>,
  signal: AbortSignal,
  retry: number,
): Promise<Response> {
  return client.messages
    .create(body as unknown as Anthropic.MessageCreateParamsStreaming, {
      signal,
      maxRetries: 0,
      headers: { accept: 'text/event-stream', 'x-stainless-retry-count': String(retry) },
    })
    .asResponse()
}

/** One event's data → a payload object; `error` events and error payloads throw their classified error. */
function parsePayload(event: string | undefined, data: string, config: AnthropicConfig): Record<string, unknown> {
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    if (event === 'error') throw streamErrorEvent(data, config.displayName)
    throw new LlmError(
      `malformed event from ${config.baseURL}: ${data.slice(0, MALFORMED_PREVIEW_CHARS)}`,
      'MALFORMED_RESPONSE',
    )
  }
  if (event === 'error' || (isRecord(json) && json.type === 'error')) throw streamErrorEvent(json, config.displayName)
  if (!isRecord(json) || typeof json.type !== 'string') {
    throw new LlmError(
      `malformed event from ${config.baseURL}: ${data.slice(0, MALFORMED_PREVIEW_CHARS)}`,
      'MALFORMED_RESPONSE',
    )
  }
  return json
}
