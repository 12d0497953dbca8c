/**
 * Neutral stream chunks → the Messages SSE events that produce them, so a test scripted in Bridle's chunk vocabulary
 * (as the agent-loop tests are) can run over the real wire through this adapter. Each block goes out when it ends:
 * `content_block_start`, one delta with its whole content (a reasoning block also gets a `signature_delta`, so its
 * answer carries replay state), `content_block_stop` (as `blockEvents` writes them); the usage travels in
 * `message_delta`.
 */
import type { StreamChunk, TokenUsage } from '@bridle/llm'
import { blockEvents, messageStart, type CannedBlock } from './canned.js'
import type { MessagesSseItem } from './mock-server.js'

const STOP_REASON = { stop: 'end_turn', 'tool-calls': 'tool_use', 'max-tokens': 'max_tokens' } as const

/** The SSE events of `chunks`, produced as the chunks arrive. A chunk stream that throws throws here too. */
export async function* eventsOfChunks(chunks: AsyncIterable<StreamChunk>): AsyncGenerator<MessagesSseItem> {
  yield messageStart({
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
  })
  let wire = 0
  let usage: TokenUsage | undefined
  for await (const chunk of chunks) {
    if (chunk.type === 'usage') usage = chunk.usage
    if (chunk.type === 'finish') {
      const reason = chunk.reason.kind
      if (reason === 'error' || reason === 'aborted') {
        const { message } = chunk.reason.failure
        yield { event: 'error', data: { type: 'error', error: { type: 'api_error', message } } }
        return
      }
      yield {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: STOP_REASON[reason], stop_sequence: null },
          usage: wireUsage(usage),
        },
      }
      yield { event: 'message_stop', data: { type: 'message_stop' } }
      return
    }
    if (chunk.type !== 'block-end') continue
    const block = chunk.block
    const index = wire
    const canned: CannedBlock | undefined =
      block.type === 'text'
        ? { type: 'text', fragments: [block.text] }
        : block.type === 'reasoning'
          ? { type: 'thinking', fragments: [block.text], signature: `sig-${index}-${block.text.length}` }
          : block.type === 'tool-call'
            ? { type: 'tool_use', id: block.id, name: block.name, fragments: [block.arguments] }
            : undefined
    if (canned === undefined) continue
    wire++
    yield* blockEvents(canned, index)
  }
}

function wireUsage(usage: TokenUsage | undefined): Record<string, number> {
  if (usage === undefined) return { output_tokens: 0 }
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    ...(usage.cacheReadTokens === undefined ? {} : { cache_read_input_tokens: usage.cacheReadTokens }),
    ...(usage.cacheWriteTokens === undefined ? {} : { cache_creation_input_tokens: usage.cacheWriteTokens }),
  }
}
