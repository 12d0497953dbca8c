import './setup.js'
import { streamGrammarViolations, type StreamChunk } from '@bridle/llm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DeltaTranslator } from '../src/index.js'
import { chunk, reasoningEvents, textEvents, toolCallEvents, usageOnlyChunk, type SseItem } from '../src/testing.js'

/** Feeds canned items up to `[DONE]` and finalizes. */
function translate(items: readonly SseItem[]): StreamChunk[] {
  const t = new DeltaTranslator()
  const out: StreamChunk[] = []
  for (const item of items) {
    if (item === '[DONE]') return [...out, ...t.finish()]
    out.push(...t.push(item as Record<string, unknown>))
  }
  throw new Error('script has no [DONE]')
}

function finishOf(chunks: StreamChunk[]) {
  const last = chunks.at(-1)
  if (last?.type !== 'finish') throw new Error('no finish')
  return last.reason
}

describe('delta translation', () => {
  it('text: the worked translation example', () => {
    const chunks = translate(textEvents(['Hel', 'lo'], { usage: { prompt_tokens: 5, completion_tokens: 2 } }))
    expect(chunks).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'Hel' },
      { type: 'text-delta', index: 0, text: 'lo' },
      { type: 'block-end', index: 0, block: { type: 'text', text: 'Hello' } },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 2 } },
      { type: 'finish', reason: { kind: 'stop' } },
    ])
    expect(streamGrammarViolations(chunks)).toEqual([])
  })

  it('reasoning then text: indexes 0 and 1, both block-ends at [DONE] in open order', () => {
    const chunks = translate(reasoningEvents(['Let me ', 'think'], ['An', 'swer']))
    expect(chunks.filter((c) => c.type === 'block-start')).toEqual([
      { type: 'block-start', index: 0, blockType: 'reasoning' },
      { type: 'block-start', index: 1, blockType: 'text' },
    ])
    expect(chunks.filter((c) => c.type === 'block-end')).toEqual([
      { type: 'block-end', index: 0, block: { type: 'reasoning', text: 'Let me think' } },
      { type: 'block-end', index: 1, block: { type: 'text', text: 'Answer' } },
    ])
    expect(streamGrammarViolations(chunks)).toEqual([])
  })

  it('accepts the `reasoning` field (vLLM, Ollama) and never counts both fields twice', () => {
    const chunks = translate([
      chunk({ reasoning: 'a' }),
      chunk({ reasoning_content: 'b', reasoning: 'IGNORED' }),
      chunk({}, 'stop'),
      '[DONE]',
    ])
    expect(chunks.filter((c) => c.type === 'reasoning-delta').map((c) => (c as { text: string }).text)).toEqual([
      'a',
      'b',
    ])
    expect(finishOf(chunks)).toEqual({ kind: 'stop' })
  })

  it('a refusal is text', () => {
    const chunks = translate([chunk({ refusal: 'I cannot help with that.' }, 'stop'), '[DONE]'])
    expect(chunks.find((c) => c.type === 'block-end')).toEqual({
      type: 'block-end',
      index: 0,
      block: { type: 'text', text: 'I cannot help with that.' },
    })
  })

  it('tool call: the worked example, deltas carry sticky id and name', () => {
    const chunks = translate(
      toolCallEvents([{ id: 'call_0', name: 'read_file', argFragments: ['{"path"', ': "a.txt"}'] }]),
    )
    expect(chunks.filter((c) => c.type === 'tool-call-delta')).toEqual([
      { type: 'tool-call-delta', index: 0, id: 'call_0', name: 'read_file', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, id: 'call_0', name: 'read_file', argumentsDelta: '{"path"' },
      { type: 'tool-call-delta', index: 0, id: 'call_0', name: 'read_file', argumentsDelta: ': "a.txt"}' },
    ])
    expect(chunks.find((c) => c.type === 'block-end')).toEqual({
      type: 'block-end',
      index: 0,
      block: { type: 'tool-call', id: 'call_0', name: 'read_file', arguments: '{"path": "a.txt"}' },
    })
    expect(finishOf(chunks)).toEqual({ kind: 'tool-calls' })
    expect(streamGrammarViolations(chunks)).toEqual([])
  })

  it('parallel calls interleaved by wire index become distinct blocks', () => {
    const chunks = translate(
      toolCallEvents([
        { id: 'a', name: 'one', argFragments: ['{"x":', '1}'] },
        { id: 'b', name: 'two', argFragments: ['{"y":', '2', '}'] },
      ]),
    )
    const ends = chunks.filter((c) => c.type === 'block-end').map((c) => (c as { block: unknown }).block)
    expect(ends).toEqual([
      { type: 'tool-call', id: 'a', name: 'one', arguments: '{"x":1}' },
      { type: 'tool-call', id: 'b', name: 'two', arguments: '{"y":2}' },
    ])
    expect(streamGrammarViolations(chunks)).toEqual([])
  })

  it('tool calls without index: a new id opens a call, id-less fragments go to the latest', () => {
    const chunks = translate([
      chunk({ tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{"k"' } }] }),
      chunk({ tool_calls: [{ function: { arguments: ':1}' } }] }),
      chunk({ tool_calls: [{ id: 'b', function: { name: 'g', arguments: '' } }] }),
      chunk({ tool_calls: [{ function: { arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
      '[DONE]',
    ])
    const ends = chunks.filter((c) => c.type === 'block-end').map((c) => (c as { block: unknown }).block)
    expect(ends).toEqual([
      { type: 'tool-call', id: 'a', name: 'f', arguments: '{"k":1}' },
      { type: 'tool-call', id: 'b', name: 'g', arguments: '{}' },
    ])
  })

  it('whole-call object arguments are JSON-stringified; missing id and name are synthesized', () => {
    const chunks = translate([
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: { a: [1, 'x'] } } }] }),
      chunk({ tool_calls: [{ index: 1 }] }),
      chunk({}, 'stop'),
      '[DONE]',
    ])
    const ends = chunks.filter((c) => c.type === 'block-end').map((c) => (c as { block: unknown }).block)
    expect(ends).toEqual([
      { type: 'tool-call', id: 'call-0', name: 'f', arguments: '{"a":[1,"x"]}' },
      { type: 'tool-call', id: 'call-1', name: '', arguments: '' },
    ])
    expect(chunks[1]).toEqual({ type: 'tool-call-delta', index: 0, id: '', name: 'f', argumentsDelta: '{"a":[1,"x"]}' })
    expect(finishOf(chunks)).toEqual({ kind: 'tool-calls' })
  })

  it('finish reasons: length → max-tokens even empty; content_filter and others → coded errors; empty stop → EMPTY_RESPONSE', () => {
    expect(finishOf(translate(textEvents(['x'], { finishReason: 'length' })))).toEqual({ kind: 'max-tokens' })
    expect(finishOf(translate([chunk({}, 'length'), '[DONE]']))).toEqual({ kind: 'max-tokens' })
    expect(finishOf(translate(textEvents(['x'], { finishReason: 'content_filter' })))).toMatchObject({
      kind: 'error',
      failure: { message: 'model stopped: content_filter', code: 'CONTENT_FILTER' },
    })
    expect(finishOf(translate(textEvents(['x'], { finishReason: 'insufficient_system_resource' })))).toMatchObject({
      kind: 'error',
      failure: { code: 'INSUFFICIENT_SYSTEM_RESOURCE' },
    })
    expect(finishOf(translate(textEvents([])))).toMatchObject({
      kind: 'error',
      failure: { message: 'model returned a completed response with no content', code: 'EMPTY_RESPONSE' },
    })
    expect(finishOf(translate([chunk({ reasoning_content: 'only' }), '[DONE]']))).toEqual({ kind: 'stop' })
    expect(finishOf(translate([chunk({ content: 'x' }, 'tool_calls'), '[DONE]']))).toEqual({ kind: 'stop' })
  })

  it('usage: latest wins, including a trailing usage-only chunk; choices other than 0 are ignored', () => {
    const chunks = translate([
      chunk({ content: 'a' }, 'stop', { prompt_tokens: 1, completion_tokens: 1 }),
      { ...(chunk({ content: 'IGNORED' }) as object), choices: [{ index: 1, delta: { content: 'IGNORED' } }] },
      usageOnlyChunk({ prompt_tokens: 10, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 6 } }),
      '[DONE]',
    ])
    expect(chunks.filter((c) => c.type === 'usage')).toEqual([
      { type: 'usage', usage: { inputTokens: 4, outputTokens: 4, cacheReadTokens: 6 } },
    ])
    expect(chunks.filter((c) => c.type === 'text-delta')).toHaveLength(1)
  })

  it('property: however the arguments are split, the assembled call is the concatenation', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string(), { maxLength: 6 }), { minLength: 1, maxLength: 4 }), (calls) => {
        const chunks = translate(
          toolCallEvents(calls.map((argFragments, i) => ({ id: `id${i}`, name: `t${i}`, argFragments }))),
        )
        expect(streamGrammarViolations(chunks)).toEqual([])
        const ends = chunks
          .filter((c) => c.type === 'block-end')
          .map((c) => (c as { block: { arguments: string } }).block)
        expect(ends.map((b) => b.arguments)).toEqual(calls.map((parts) => parts.join('')))
        expect(finishOf(chunks)).toEqual({ kind: 'tool-calls' })
      }),
    )
  })
})
