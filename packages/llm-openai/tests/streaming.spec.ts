import { afterEach, describe, expect, it } from 'vitest'
import { DONE, KEEPALIVE, chunk, reasoningEvents, textEvents, toolCallEvents, usageOnlyChunk } from '../src/testing.js'
import { boot, failureOf, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

describe('streaming translation over the wire', () => {
  it('text: block chunks, usage, stop; request is POST /chat/completions', async () => {
    h = await boot([
      { kind: 'sse', events: textEvents(['Hel', 'lo'], { usage: { prompt_tokens: 5, completion_tokens: 2 } }) },
    ])
    const r = await run(h.ctx)
    expect(r.chunks).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'Hel' },
      { type: 'text-delta', index: 0, text: 'lo' },
      { type: 'block-end', index: 0, block: { type: 'text', text: 'Hello' } },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 2 } },
      { type: 'finish', reason: { kind: 'stop' } },
    ])
    expect(r.message.content).toEqual([{ type: 'text', text: 'Hello' }])
    expect(h.server.requests[0]).toMatchObject({ method: 'POST', path: '/chat/completions' })
  })

  it('reasoning then text, and reasoning-only → stop', async () => {
    h = await boot([
      { kind: 'sse', events: reasoningEvents(['Think', 'ing'], 'Done') },
      { kind: 'sse', events: [chunk({ reasoning_content: 'hmm' }), chunk({}, 'stop'), DONE] },
    ])
    const a = await run(h.ctx)
    expect(a.message.content).toEqual([
      { type: 'reasoning', text: 'Thinking' },
      { type: 'text', text: 'Done' },
    ])
    const b = await run(h.ctx)
    expect(b.finish).toEqual({ kind: 'stop' })
    expect(b.message.content).toEqual([{ type: 'reasoning', text: 'hmm' }])
  })

  it('the `reasoning` field (vLLM, Ollama)', async () => {
    h = await boot([{ kind: 'sse', events: [chunk({ reasoning: 'r1' }), chunk({ content: 'ok' }, 'stop'), DONE] }])
    expect((await run(h.ctx)).message.content).toEqual([
      { type: 'reasoning', text: 'r1' },
      { type: 'text', text: 'ok' },
    ])
  })

  it('parallel tool calls split across many chunks, assembled by index', async () => {
    const args1 = ['{', '"pa', 'th"', ': "', 'a.txt', '"}']
    const args2 = ['{"q"', ':', ' 1', '}']
    h = await boot([
      {
        kind: 'sse',
        events: toolCallEvents([
          { id: 'call_0', name: 'read_file', argFragments: args1 },
          { id: 'call_1', name: 'grep', argFragments: args2 },
        ]),
      },
    ])
    const r = await run(h.ctx)
    expect(r.finish).toEqual({ kind: 'tool-calls' })
    expect(r.message.content).toEqual([
      { type: 'tool-call', id: 'call_0', name: 'read_file', arguments: '{"path": "a.txt"}' },
      { type: 'tool-call', id: 'call_1', name: 'grep', arguments: '{"q": 1}' },
    ])
    const deltas = r.chunks.filter((c) => c.type === 'tool-call-delta')
    expect(deltas).toHaveLength(2 + args1.length + args2.length)
    expect(new Set(deltas.map((d) => d.index))).toEqual(new Set([0, 1]))
  })

  it('index-less tool calls, whole-call object arguments, and `stop` after tool calls → tool-calls', async () => {
    h = await boot([
      {
        kind: 'sse',
        events: [
          chunk({ tool_calls: [{ id: 'x1', type: 'function', function: { name: 'f', arguments: { a: 1 } } }] }),
          chunk({ tool_calls: [{ id: 'x2', function: { name: 'g', arguments: '{"b"' } }] }),
          chunk({ tool_calls: [{ function: { arguments: ':2}' } }] }),
          chunk({}, 'stop'),
          DONE,
        ],
      },
    ])
    const r = await run(h.ctx)
    expect(r.finish).toEqual({ kind: 'tool-calls' })
    expect(r.message.content).toEqual([
      { type: 'tool-call', id: 'x1', name: 'f', arguments: '{"a":1}' },
      { type: 'tool-call', id: 'x2', name: 'g', arguments: '{"b":2}' },
    ])
  })

  it('`length` → max-tokens, and truncated tool calls never reach the message', async () => {
    h = await boot([
      {
        kind: 'sse',
        events: toolCallEvents([{ id: 'c', name: 'f', argFragments: ['{"a'] }], { finishReason: 'length' }),
      },
    ])
    const r = await run(h.ctx)
    expect(r.finish).toEqual({ kind: 'max-tokens' })
    expect(r.message.content).toEqual([])
  })

  it('content_filter → CONTENT_FILTER; empty stop → EMPTY_RESPONSE', async () => {
    h = await boot([
      { kind: 'sse', events: textEvents(['partial'], { finishReason: 'content_filter' }) },
      { kind: 'sse', events: textEvents([]) },
    ])
    expect(failureOf((await run(h.ctx)).finish)).toMatchObject({
      code: 'CONTENT_FILTER',
      message: 'model stopped: content_filter',
    })
    expect(failureOf((await run(h.ctx)).finish)).toMatchObject({
      code: 'EMPTY_RESPONSE',
      message: 'model returned a completed response with no content',
    })
  })

  it('usage with cache hits: DeepSeek fields on the finish chunk, OpenAI fields on a trailing usage-only chunk', async () => {
    h = await boot([
      {
        kind: 'sse',
        events: textEvents(['a'], {
          usage: {
            prompt_tokens: 1200,
            completion_tokens: 80,
            prompt_cache_hit_tokens: 1024,
            prompt_cache_miss_tokens: 176,
          },
        }),
      },
      {
        kind: 'sse',
        events: [
          chunk({ content: 'b' }),
          chunk({}, 'stop'),
          usageOnlyChunk({
            prompt_tokens: 300,
            completion_tokens: 40,
            prompt_tokens_details: { cached_tokens: 256 },
            completion_tokens_details: { reasoning_tokens: 12 },
          }),
          DONE,
        ],
      },
    ])
    expect((await run(h.ctx)).usage).toEqual({ inputTokens: 176, outputTokens: 80, cacheReadTokens: 1024 })
    expect((await run(h.ctx)).usage).toEqual({
      inputTokens: 44,
      outputTokens: 40,
      cacheReadTokens: 256,
      reasoningTokens: 12,
    })
  })

  it('one byte per write, CJK text and CRLF framing', async () => {
    const events = textEvents(['你好，', '世界 🌏', '！'])
    const crlf = events.map((e) => ({ raw: `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\r\n\r\n` }))
    h = await boot([{ kind: 'sse', events: crlf, chunkBytes: 1 }])
    const r = await run(h.ctx)
    expect(r.message.content).toEqual([{ type: 'text', text: '你好，世界 🌏！' }])
    expect(r.finish).toEqual({ kind: 'stop' })
  })

  it('keep-alive comments are ignored; events after [DONE] are never read', async () => {
    h = await boot([
      {
        kind: 'sse',
        events: [
          KEEPALIVE,
          KEEPALIVE,
          ...textEvents(['x']).slice(0, -1),
          KEEPALIVE,
          DONE,
          chunk({ content: 'LATE' }),
          DONE,
        ],
      },
    ])
    const r = await run(h.ctx)
    expect(r.message.content).toEqual([{ type: 'text', text: 'x' }])
    expect(r.finish).toEqual({ kind: 'stop' })
  })
})
