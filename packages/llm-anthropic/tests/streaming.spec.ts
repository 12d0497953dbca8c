import { afterEach, describe, expect, it } from 'vitest'
import { PING, answerEvents, messageStart, textAnswer, toolUseAnswer, type MessagesSseItem } from '../src/testing.js'
import { boot, failureOf, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

describe('streaming Messages events into chunks', () => {
  it('streams text and ignores pings', async () => {
    h = await boot([{ kind: 'sse', events: textAnswer(['Hel', 'lo']) }])
    const result = await run(h.ctx)
    expect(result.chunks.map((c) => c.type)).toEqual([
      'block-start',
      'text-delta',
      'text-delta',
      'block-end',
      'usage',
      'finish',
    ])
    expect(result.message.content).toEqual([{ type: 'text', text: 'Hello' }])
    expect(result.finish).toEqual({ kind: 'stop' })
    expect(result.message.source).toEqual({ kind: 'model', provider: 'mock', model: 'mock-claude' })
  })

  it('turns thinking into a reasoning block and keeps its signature in replayState', async () => {
    h = await boot([
      {
        kind: 'sse',
        events: answerEvents([
          { type: 'thinking', fragments: ['Let me ', 'think.'], signature: 'EqQBCkYIARgCKkB+sig/==' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
          { type: 'text', fragments: ['Done'] },
        ]),
      },
    ])
    const result = await run(h.ctx)
    expect(result.message.content).toEqual([
      { type: 'reasoning', text: 'Let me think.' },
      { type: 'text', text: 'Done' },
    ])
    expect(result.message.source).toMatchObject({
      replayState: {
        format: 'anthropic-messages/1',
        layout: [
          { type: 'thinking', signature: 'EqQBCkYIARgCKkB+sig/==' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
          'block',
        ],
      },
    })
  })

  it('produces no replayState for an answer without thinking', async () => {
    h = await boot([{ kind: 'sse', events: textAnswer(['x']) }])
    const result = await run(h.ctx)
    expect(result.message.source).not.toHaveProperty('replayState')
  })

  it('streams twelve parallel tool calls with their JSON input', async () => {
    const calls = Array.from({ length: 12 }, (_, i) => ({
      id: `toolu_${i}`,
      name: 'read_file',
      args: `{"path":"f${i}.txt"}`,
    }))
    h = await boot([{ kind: 'sse', events: toolUseAnswer(calls) }])
    const result = await run(h.ctx)
    expect(result.finish).toEqual({ kind: 'tool-calls' })
    expect(result.message.content).toHaveLength(12)
    expect(result.message.content[11]).toEqual({
      type: 'tool-call',
      id: 'toolu_11',
      name: 'read_file',
      arguments: '{"path":"f11.txt"}',
    })
    const deltas = result.chunks.filter((c) => c.type === 'tool-call-delta' && c.index === 0)
    expect(deltas.map((d) => (d as { argumentsDelta: string }).argumentsDelta).join('')).toBe('{"path":"f0.txt"}')
  })

  it('keeps a tool call whose whole input came in content_block_start', async () => {
    const events: MessagesSseItem[] = [
      messageStart(),
      {
        event: 'content_block_start',
        data: {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_a', name: 'ls', input: { dir: '.' } },
        },
      },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]
    h = await boot([{ kind: 'sse', events }])
    const result = await run(h.ctx)
    expect(result.message.content).toEqual([{ type: 'tool-call', id: 'toolu_a', name: 'ls', arguments: '{"dir":"."}' }])
  })

  it.each([
    ['end_turn', { kind: 'stop' }],
    ['stop_sequence', { kind: 'stop' }],
    ['max_tokens', { kind: 'max-tokens' }],
    ['model_context_window_exceeded', { kind: 'max-tokens' }],
  ])('maps stop reason %s', async (stopReason, finish) => {
    h = await boot([{ kind: 'sse', events: textAnswer(['a'], { stopReason }) }])
    expect((await run(h.ctx)).finish).toEqual(finish)
  })

  it.each([
    ['refusal', 'REFUSAL'],
    ['pause_turn', 'PAUSE_TURN'],
  ])('ends stop reason %s as an error with code %s', async (stopReason, code) => {
    h = await boot([{ kind: 'sse', events: textAnswer(['partial'], { stopReason }) }])
    const result = await run(h.ctx)
    expect(failureOf(result.finish).code).toBe(code)
    expect(result.message.content).toEqual([{ type: 'text', text: 'partial' }])
  })

  it('drops tool calls cut by max_tokens', async () => {
    h = await boot([
      { kind: 'sse', events: toolUseAnswer([{ id: 't1', name: 'ls', args: '{"dir":' }], { stopReason: 'max_tokens' }) },
    ])
    const result = await run(h.ctx)
    expect(result.finish).toEqual({ kind: 'max-tokens' })
    expect(result.message.content).toEqual([])
  })

  it('reports an answer without content as EMPTY_RESPONSE', async () => {
    h = await boot([{ kind: 'sse', events: answerEvents([]) }])
    expect(failureOf((await run(h.ctx)).finish).code).toBe('EMPTY_RESPONSE')
  })

  it('records input, cache read and cache write tokens, disjoint as the API reports them', async () => {
    const usage = {
      input_tokens: 21,
      cache_creation_input_tokens: 1500,
      cache_read_input_tokens: 9000,
      output_tokens: 1,
    }
    h = await boot([{ kind: 'sse', events: textAnswer(['a'], { usage, outputTokens: 42 }) }])
    const result = await run(h.ctx)
    expect(result.usage).toEqual({ inputTokens: 21, outputTokens: 42, cacheReadTokens: 9000, cacheWriteTokens: 1500 })
  })

  it('takes input and cache figures that message_delta repeats, and thinking tokens', async () => {
    const events = textAnswer(['a'])
    const delta = events.find((e) => 'event' in e && e.event === 'message_delta') as { data: Record<string, unknown> }
    delta.data.usage = {
      output_tokens: 9,
      input_tokens: 4,
      cache_read_input_tokens: 100,
      output_tokens_details: { thinking_tokens: 6 },
    }
    h = await boot([{ kind: 'sse', events }])
    const result = await run(h.ctx)
    expect(result.usage).toEqual({
      inputTokens: 4,
      outputTokens: 9,
      cacheReadTokens: 100,
      cacheWriteTokens: 0,
      reasoningTokens: 6,
    })
  })

  it('frames a stream delivered one byte at a time, CJK text included', async () => {
    h = await boot([{ kind: 'sse', events: textAnswer(['你好，', '世界 🌍']), chunkBytes: 1 }])
    expect((await run(h.ctx)).message.content).toEqual([{ type: 'text', text: '你好，世界 🌍' }])
  })

  it('reads CRLF framing and ignores unknown event types', async () => {
    const events: MessagesSseItem[] = textAnswer(['ok']).map((item) =>
      'raw' in item ? item : { raw: `event: ${item.event}\r\ndata: ${JSON.stringify(item.data)}\r\n\r\n` },
    )
    events.splice(1, 0, { event: 'future_event', data: { type: 'future_event', x: 1 } }, PING)
    h = await boot([{ kind: 'sse', events }])
    expect((await run(h.ctx)).message.content).toEqual([{ type: 'text', text: 'ok' }])
  })

  it('ignores what follows message_stop', async () => {
    h = await boot([{ kind: 'sse', events: [...textAnswer(['a']), { raw: 'data: not json\n\n' }] }])
    expect((await run(h.ctx)).finish).toEqual({ kind: 'stop' })
  })
})
