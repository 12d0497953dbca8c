/**
 * `OpenAICompatAdapter`: the `LlmAdapter` for one chat-completions route (spec §3, §4, §6).
 * Metadata comes from the config catalog without I/O; `stream()` runs one logical call: credential,
 * body, SDK request phase, then our own SSE reader and delta translator.
 */
import {
  LlmError,
  assertUsableApiKey,
  reasoningEffortId,
  type GenerateOptions,
  type LlmAdapter,
  type LlmModelInfo,
  type StreamChunk,
} from '@bridle/llm'
import type OpenAI from 'openai'
import { createClient, type CallRecord } from './client.js'
import type { OpenAICompatConfig } from './config.js'
import { readSseEvents } from './event-stream.js'
import { toLlmError } from './failures.js'
import { asRecord } from './json-object.js'
import { detailsOfObject, streamErrorEvent } from './http-errors.js'
import { buildRequestBody } from './serialize.js'
import { DeltaTranslator } from './translate.js'

const MALFORMED_PREVIEW_CHARS = 120

export class OpenAICompatAdapter implements LlmAdapter {
  constructor(readonly config: OpenAICompatConfig) {}

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

  /** One logical provider attempt. Throws `LlmError`; `LlmRuntime` turns it into the `finish` chunk. */
  async *stream(options: GenerateOptions): AsyncGenerator<StreamChunk, void, undefined> {
    const config = this.config
    if (options.signal?.aborted === true) throw new LlmError('request aborted', 'ABORTED')
    const apiKey = this.readApiKey()
    const body = buildRequestBody(options, config)
    const internal = new AbortController()
    const signal = options.signal === undefined ? internal.signal : AbortSignal.any([options.signal, internal.signal])
    const record: CallRecord = {}
    const client = createClient(config, apiKey, record)
    try {
      const response = await raceAbort(requestStream(client, body, signal), options.signal)
      const events = checkResponse(response, config)
      const translator = new DeltaTranslator()
      for await (const event of readSseEvents(events, {
        idleTimeoutMs: config.streamIdleTimeoutMs,
        baseURL: config.baseURL,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      })) {
        if (event.data.trim() === '[DONE]') {
          yield* translator.finish()
          return
        }
        yield* translator.push(parsePayload(event.event, event.data, config))
      }
      throw new LlmError(`event stream from ${config.baseURL} ended without [DONE]`, 'STREAM_CLOSED')
    } catch (error) {
      throw toLlmError(error, { config, record, ...(options.signal === undefined ? {} : { signal: options.signal }) })
    } finally {
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
    return assertUsableApiKey(raw, name)
  }
}

function requestStream(client: OpenAI, body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
  return client.chat.completions
    .create(body as unknown as OpenAI.ChatCompletionCreateParamsStreaming, {
      signal,
      headers: { accept: 'text/event-stream' },
    })
    .asResponse()
}

/**
 * Settles with `work`, or rejects with `ABORTED` as soon as `signal` aborts — the SDK's backoff
 * sleep does not watch the signal. The abandoned promise gets a no-op `catch`.
 */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  work.catch(() => {})
  if (signal === undefined) return work
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new LlmError('request aborted', 'ABORTED'))
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** §6.2: a JSON answer means the server ignored `stream: true`; a missing body is empty. */
function checkResponse(response: Response, config: OpenAICompatConfig): ReadableStream<Uint8Array> {
  const type = response.headers.get('content-type') ?? ''
  if (type.toLowerCase().includes('application/json')) {
    response.body?.cancel().catch(() => {})
    throw new LlmError(`expected an event stream from ${config.baseURL}, got application/json`, 'MALFORMED_RESPONSE')
  }
  if (response.body === null) throw new LlmError(`empty response body from ${config.baseURL}`, 'EMPTY_RESPONSE')
  return response.body
}

/** One event's data → a payload object; error events and error payloads throw their classified error. */
function parsePayload(event: string | undefined, data: string, config: OpenAICompatConfig): Record<string, unknown> {
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    if (event === 'error') throw streamErrorEvent({ message: data.trim() }, config.displayName)
    throw malformed(data, config)
  }
  if (event === 'error') throw streamErrorEvent(detailsOfObject(json), config.displayName)
  const payload = asRecord(json)
  if (payload === undefined) throw malformed(data, config)
  if ('error' in payload && !('choices' in payload)) {
    throw streamErrorEvent(detailsOfObject(payload), config.displayName)
  }
  return payload
}

function malformed(data: string, config: OpenAICompatConfig): LlmError {
  return new LlmError(
    `malformed event from ${config.baseURL}: ${data.slice(0, MALFORMED_PREVIEW_CHARS)}`,
    'MALFORMED_RESPONSE',
  )
}
