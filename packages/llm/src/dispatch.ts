/**
 * The terminal stage of `llm/stream` (docs/model-calls.md#the-llmstream-waterfall-and-its-terminal-stage): select the
 * adapter, resolve the config when unprepared, strip foreign `replayState`, call the adapter, and turn every failure
 * into one terminal `finish` chunk.
 */
import type { LlmAdapter } from './adapter.js'
import { createLlmFailure, LlmError, toLlmFailure } from './errors.js'
import { deepFreeze } from './freeze.js'
import type { Message } from './message.js'
import { replayIndexOf } from './replay-index.js'
import { resolveCallConfig, resolveModelInfo } from './model.js'
import type { AdapterRegistry } from './registry.js'
import { callConfigEquals, callConfigOf, type GenerateOptions } from './request.js'
import type { FinishChunk, StreamChunk } from './stream.js'

/** The adapter a prepared call captured at the start of `prepareCall`. */
export interface CapturedAdapter {
  readonly adapter: LlmAdapter
}

/** The `NO_ADAPTER` error for an unowned route. */
export function noAdapterError(provider: string): LlmError {
  return new LlmError(`no LLM adapter is registered for provider "${provider}"`, 'NO_ADAPTER')
}

/**
 * Builds the one terminal chunk for a thrown value. The kind is `aborted` (and the code `ABORTED`) when
 * the caller's signal fired or the code is `ABORTED`; otherwise `error` with the normalized failure.
 */
function failureFinish(error: unknown, signal: AbortSignal | undefined): FinishChunk {
  const failure = toLlmFailure(error)
  if (failure.code === 'ABORTED') return { type: 'finish', reason: { kind: 'aborted', failure } }
  if (signal?.aborted) {
    return {
      type: 'finish',
      reason: { kind: 'aborted', failure: createLlmFailure(`LLM call aborted: ${failure.message}`, 'ABORTED') },
    }
  }
  return { type: 'finish', reason: { kind: 'error', failure } }
}

const MISSING_FINISH: FinishChunk = deepFreeze({
  type: 'finish',
  reason: {
    kind: 'error',
    failure: { message: 'adapter stream ended without a finish chunk', code: 'MALFORMED_RESPONSE' },
  },
})

/**
 * Returns `request` with `replayState` removed from assistant messages whose `source.provider` is not
 * currently owned by `adapter`. Untouched messages are reused; stripped copies keep their ids. When nothing
 * needs stripping the same object is returned.
 */
function stripForeignReplayState(
  request: GenerateOptions,
  adapter: LlmAdapter,
  registry: AdapterRegistry,
): GenerateOptions {
  const messages = request.messages
  // Usually every replay-carrying provider is still this adapter's: then nothing is stripped, and the per-history
  // index answers that without reading each message again.
  let foreign = false
  for (const provider of replayIndexOf(messages).providers.keys()) {
    if (registry.get(provider)?.owner.adapter !== adapter) foreign = true
  }
  if (!foreign) return request
  let copy: Message[] | undefined
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    const source = message.source
    if (source.kind !== 'model' || source.replayState === undefined) continue
    if (registry.get(source.provider)?.owner.adapter === adapter) continue
    copy ??= messages.slice()
    const { replayState: _dropped, ...rest } = source
    copy[i] = deepFreeze({ ...message, source: rest })
  }
  if (!copy) return request
  return deepFreeze({ ...request, messages: copy })
}

/** Finds the adapter and the exact request it receives; throws what the terminal stage turns into a finish. */
async function select(
  registry: AdapterRegistry,
  options: GenerateOptions,
  captured: CapturedAdapter | undefined,
): Promise<{ adapter: LlmAdapter; request: GenerateOptions }> {
  if (captured)
    return { adapter: captured.adapter, request: stripForeignReplayState(options, captured.adapter, registry) }
  const route = registry.get(options.provider)
  if (!route) throw noAdapterError(options.provider)
  const adapter = route.owner.adapter
  const model = await resolveModelInfo(adapter, options.provider, options.model, options.signal)
  const proposed = callConfigOf(options)
  const { config } = resolveCallConfig(proposed, model)
  const request = callConfigEquals(config, proposed) ? options : deepFreeze({ ...options, ...config })
  return { adapter, request: stripForeignReplayState(request, adapter, registry) }
}

/**
 * The innermost `next` of `llm/stream`. Re-yields the adapter's chunks up to and including its `finish`,
 * then stops pulling and awaits the adapter iterator's `return()`. A stream that ends without `finish`
 * gets a `MALFORMED_RESPONSE` finish. Any throw from selection, resolution, `stream()`, iterator creation
 * or iteration becomes ONE terminal finish chunk. Errors from the adapter's `return()` and from consumers
 * stay thrown. An early consumer `return()` awaits the adapter iterator's `return()`.
 */
export async function* terminalStream(
  registry: AdapterRegistry,
  options: GenerateOptions,
  captured?: CapturedAdapter,
): AsyncGenerator<StreamChunk, void, undefined> {
  const signal = options?.signal
  let iterator: AsyncIterator<StreamChunk> | undefined
  try {
    try {
      const { adapter, request } = await select(registry, options, captured)
      iterator = adapter.stream(request)[Symbol.asyncIterator]()
    } catch (error) {
      yield failureFinish(error, signal)
      return
    }
    while (true) {
      let step: IteratorResult<StreamChunk>
      try {
        step = await iterator.next()
      } catch (error) {
        iterator = undefined
        yield failureFinish(error, signal)
        return
      }
      if (step.done) {
        iterator = undefined
        yield MISSING_FINISH
        return
      }
      yield step.value
      if (step.value?.type === 'finish') return
    }
  } finally {
    const open = iterator
    iterator = undefined
    if (open?.return) await open.return()
  }
}
