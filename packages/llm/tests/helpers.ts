import { Context } from 'cordis'
import { LlmRuntime, type GenerateOptions, type LlmAdapter, type StreamChunk } from '@bridle/llm'

/** A fresh app with `ctx.llm` provided. */
export function createApp(): Context {
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  return ctx
}

export const STOP: StreamChunk = { type: 'finish', reason: { kind: 'stop' } }

/** A text answer as a grammatical chunk list. */
export function textChunks(text: string, index = 0): StreamChunk[] {
  return [
    { type: 'block-start', index, blockType: 'text' },
    { type: 'text-delta', index, text },
    { type: 'block-end', index, block: { type: 'text', text } },
  ]
}

/** An adapter that records every request and replays `chunks`. */
export function scriptedAdapter(
  chunks: StreamChunk[] = [...textChunks('ok'), STOP],
  extra: Partial<LlmAdapter> = {},
): LlmAdapter & { requests: GenerateOptions[] } {
  const requests: GenerateOptions[] = []
  return {
    requests,
    async *stream(options: GenerateOptions) {
      requests.push(options)
      for (const chunk of chunks) yield chunk
    },
    ...extra,
  }
}

/** Drains an async iterable into an array. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of iterable) out.push(item)
  return out
}

/** A minimal request for `provider`/`model`. */
export function request(provider = 'p', model = 'm', extra: Partial<GenerateOptions> = {}): GenerateOptions {
  return { provider, model, messages: [], ...extra }
}
