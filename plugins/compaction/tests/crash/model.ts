/**
 * The model both sides of the crash test use (the child that is killed and the parent that resumes): route `mock`
 * with a small advertised context window, usage counted from what it received (one token per four characters),
 * tool-free answers, and summaries streamed in many chunks, `summaryDelayMs` apart.
 */
import type { Context } from 'cordis'
import type { GenerateOptions, Message, StreamChunk } from '@bridle/llm'

export const CRASH_WINDOW = 2000
export const CRASH_COMPACTION = { threshold: 0.8, lowWater: 0.4, summaryMaxTokens: 100 }

/** Prompt `n` (about 400 characters). */
export const prompt = (n: number): string => `prompt ${n} `.padEnd(400, 'abcdefgh ')

function tokens(request: GenerateOptions): number {
  let chars = (request.system ?? '').length
  for (const m of request.messages as readonly Message[]) {
    for (const b of m.content) if (b.type === 'text') chars += b.text.length
  }
  return Math.ceil(chars / 4) + 3 * request.messages.length
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export function bootModel(ctx: Context, options: { summaryDelayMs: number }): void {
  ctx.llm.registerAdapter(['mock'], {
    resolveModel: (provider, model) => ({ provider, id: model, name: model, context: { contextWindow: CRASH_WINDOW } }),
    async *stream(request: GenerateOptions): AsyncIterable<StreamChunk> {
      const summary = request.purpose === 'compaction'
      const text = summary
        ? `summary of ${request.messages.length - 1} messages`.padEnd(240, ' and more')
        : 'answer '.padEnd(400, 'xyz ')
      const parts = summary ? text.match(/.{1,24}/g)! : [text]
      yield { type: 'block-start', index: 0, blockType: 'text' }
      for (const part of parts) {
        if (summary) await sleep(options.summaryDelayMs)
        if (request.signal?.aborted) throw request.signal.reason
        yield { type: 'text-delta', index: 0, text: part }
      }
      yield { type: 'block-end', index: 0, block: { type: 'text', text } }
      yield { type: 'usage', usage: { inputTokens: tokens(request), outputTokens: Math.ceil(text.length / 4) } }
      yield { type: 'finish', reason: { kind: 'stop' } }
    },
  })
}
