/**
 * `OpenAICompatAdapter`: the `LlmAdapter` for one chat-completions route
 * (docs/model-calls.md#the-openai-compatible-adapter). Metadata comes from the config catalog without I/O; `stream()`
 * runs one logical call: credential, body, the request phase (SDK request, our bounded retries), then our own SSE
 * reader and delta translator. Every error leaving it is scrubbed of the key and the configured header values, and
 * the key is added to the process's secret filter when it is read (docs/security.md#what-is-filtered).
 */
import {
  LlmError,
  ProgressBudget,
  ResponseMeter,
  assertUsableApiKey,
  holdSecrets,
  reasoningEffortId,
  startTotalDeadline,
  type GenerateOptions,
  type LlmAdapter,
  type LlmModelInfo,
  type StreamChunk,
} from '@bridle/llm'
import type OpenAI from 'openai'
import { createClient, type CallRecord } from './client.js'
import type { OpenAICompatConfig } from './config.js'
import { raceAbort } from './abort.js'
import { readSseEvents } from './event-stream.js'
import { redactError, toLlmError } from './failures.js'
import { parsePayload } from './payload.js'
import { realClock, withRetries, type RetryClock } from './retries.js'
import { buildRequestBody } from './serialize.js'
import { DeltaTranslator, movesAnswer } from './translate.js'

export class OpenAICompatAdapter implements LlmAdapter {
  /** Internal controllers of the calls in flight, aborted by `dispose()`. */
  private readonly calls = new Set<AbortController>()
  private disposed: LlmError | undefined

  /** `clock` replaces the retry loop's sleep, jitter and time (tests observe waits without sleeping). */
  constructor(
    readonly config: OpenAICompatConfig,
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

  /** Catalog facts for a listed model; an unlisted id resolves to a bare `{provider, id, name}`. */
  resolveModel(provider: string, model: string): LlmModelInfo {
    const m = this.config.models.find((entry) => entry.id === model)
    if (m === undefined) return { provider, id: model, name: model }
    const efforts = m.reasoningEfforts
    return {
      provider,
      id: m.id,
      name: m.name ?? m.id,
      ...(m.description === undefined ? {} : { description: m.description }),
      context: { contextWindow: m.contextWindow },
      ...(m.defaultMaxTokens === undefined ? {} : { defaultMaxTokens: m.defaultMaxTokens }),
      ...(efforts === undefined
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

  /** The runtime default applies; SDK retries are transport-level and independent. */
  retryPolicy(): undefined {
    return undefined
  }

  /**
   * Ends every call in flight with `ABORTED` (the route was disposed): their sockets close and their
   * timers are cleared, so a disposed route keeps nothing alive. Later calls fail the same way.
   */
  dispose(): void {
    this.disposed ??= new LlmError(`request aborted: the ${this.config.provider} route was disposed`, 'ABORTED')
    for (const call of this.calls) call.abort(this.disposed)
    this.calls.clear()
  }

  /**
   * One logical provider attempt. Throws `LlmError`; `LlmRuntime` turns it into the `finish` chunk. Bounded in time
   * (idle, progress and total deadlines) and size (`maxResponseBytes`): docs/model-calls.md#bounds.
   */
  async *stream(options: GenerateOptions): AsyncGenerator<StreamChunk, void, undefined> {
    const config = this.config
    if (options.signal?.aborted === true) throw new LlmError('request aborted', 'ABORTED')
    if (this.disposed !== undefined) throw this.disposed
    const apiKey = this.readApiKey()
    const body = buildRequestBody(options, config)
    const internal = new AbortController()
    const signal = options.signal === undefined ? internal.signal : AbortSignal.any([options.signal, internal.signal])
    const record: CallRecord = {}
    const client = createClient(config, apiKey, record)
    this.calls.add(internal)
    const stopTotal = startTotalDeadline(config.streamTotalTimeoutMs, config.baseURL, (reason) =>
      internal.abort(reason),
    )
    try {
      const response = await withRetries(
        (retryCount) => raceAbort(requestStream(client, body, signal, retryCount), signal),
        config,
        signal,
        this.clock,
      )
      if (response.body === null) throw new LlmError(`empty response body from ${config.baseURL}`, 'EMPTY_RESPONSE')
      const translator = new DeltaTranslator()
      const dataBudget = new ProgressBudget(config.streamDataTimeoutMs, config.baseURL)
      for await (const event of readSseEvents(response.body, {
        idleTimeoutMs: config.streamIdleTimeoutMs,
        dataBudget,
        responseMeter: new ResponseMeter(config.maxResponseBytes, config.baseURL),
        maxLineBytes: config.maxLineBytes,
        contentType: response.headers.get('content-type') ?? '',
        baseURL: config.baseURL,
        signal,
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
    } catch (error) {
      const ladder = {
        config,
        record,
        internal: internal.signal,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }
      throw redactError(toLlmError(error, ladder), secretsOf(config, apiKey))
    } finally {
      stopTotal()
      this.calls.delete(internal)
      internal.abort()
    }
  }

  /** Reads the key now (not at load): `null` when keyless; throws a credential error naming the variable. */
  private readApiKey(): string | null {
    const name = this.config.apiKeyEnv
    if (name === null) return null
    const raw = process.env[name]
    if (raw === undefined || raw === '') {
      throw new LlmError(`no API key: environment variable ${name} is not set`, 'MISSING_CREDENTIAL')
    }
    const key = assertUsableApiKey(raw, name)
    holdSecrets(raw, key)
    return key
  }
}

/** What a message must never show: the key the call sent and the configured header values. */
function secretsOf(config: OpenAICompatConfig, apiKey: string | null): string[] {
  return [...(apiKey === null ? [] : [apiKey]), ...Object.values(config.headers)]
}

function requestStream(
  client: OpenAI,
  body: Record<string, unknown>,
  signal: AbortSignal,
  retryCount: number,
): Promise<Response> {
  return client.chat.completions
    .create(body as unknown as OpenAI.ChatCompletionCreateParamsStreaming, {
      signal,
      maxRetries: 0,
      headers: { accept: 'text/event-stream', 'x-stainless-retry-count': String(retryCount) },
    })
    .asResponse()
}
