/**
 * The live spans of real agent turns, read back from the SDK's in-memory exporter: names, kinds, parents, the
 * conventions' attribute names and values, Bridle's own facts and the times of the log's events (errors: errors.spec.ts).
 */
import { describe, expect, it } from 'vitest'
import { callTools, eventOf, plain, say, tick, tracedHarness, traceIdsOf, turn } from './support.js'

describe('live spans of a turn', () => {
  it('a turn with a tool call: invoke_agent over chat, execute_tool, chat, at the times of the log', async () => {
    const h = tracedHarness()
    h.ctx.tools.register({
      name: 'read_file',
      description: 'reads',
      parameters: { type: 'object' },
      execute: () => 'ok',
    })
    await tick()
    const agent = h.agent({ sessionId: 's-tool' })
    h.script.push(callTools({ id: 'c1', name: 'read_file', args: '{"path":"a"}' }), say('done'))
    await turn(h, agent, 'read a')

    const spans = plain(h.recorder.spans())
    expect(spans.map((s) => [s.name, s.kind, s.parent])).toEqual([
      ['chat m1', 'client', 3],
      ['execute_tool read_file', 'internal', 3],
      ['chat m1', 'client', 3],
      ['invoke_agent', 'internal', null],
    ])
    // one trace per turn
    expect(new Set(traceIdsOf(h.recorder.spans())).size).toBe(1)
    const [chat1, tool, chat2, root] = spans as [any, any, any, any]
    expect(root.scope).toBe('@bridle/otel')

    // times are the events' recorded times
    const digest1 = eventOf(agent, 'request/digest', (d) => d.step === 1)
    const digest2 = eventOf(agent, 'request/digest', (d) => d.step === 2)
    expect(root.start).toBe(eventOf(agent, 'turn/start').time)
    expect(root.end).toBe(eventOf(agent, 'turn/end').time)
    expect(chat1.start).toBe(digest1.time)
    expect(chat1.end).toBe(eventOf(agent, 'assistant/chunk', (d) => d.step === 1 && d.chunk.type === 'finish').time)
    expect(tool.start).toBe(eventOf(agent, 'tool/call').time)
    expect(tool.end).toBe(eventOf(agent, 'tool/result').time)
    expect(chat2.start).toBe(digest2.time)
    const firstChunk = eventOf(agent, 'assistant/chunk', (d) => d.step === 2)
    expect(chat2.attributes['gen_ai.response.time_to_first_chunk']).toBe((firstChunk.time - digest2.time) / 1000)

    const answer = eventOf(agent, 'assistant/message', (d) => d.step === 2)
    expect(chat2.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'mock',
      'gen_ai.request.model': 'm1',
      'gen_ai.conversation.id': 's-tool',
      'bridle.session.id': 's-tool',
      'bridle.turn': 1,
      'bridle.step': 2,
      'bridle.attempt': 1,
      'bridle.request.seq': digest2.seq,
      'bridle.request.digest': (digest2.data as { request: string }).request,
      'bridle.request.header_reason': 'unchanged',
      'bridle.request.sections': ['harness:identity'],
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.response.id': (answer.data as { message: { id: string } }).message.id,
      'gen_ai.response.model': 'm1',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.time_to_first_chunk': (firstChunk.time - digest2.time) / 1000,
      'bridle.cache.break': 'none',
      'bridle.cache.prefix_messages': 1,
      'bridle.cache.prefix_chars': expect.any(Number),
    })
    expect(chat1.attributes).toMatchObject({
      'bridle.request.header_reason': 'initial',
      'gen_ai.response.finish_reasons': ['tool_calls'],
    })
    expect(chat1.attributes['bridle.finish']).toBeUndefined()
    // the first request has nothing to compare with, and reported no usage
    expect(Object.keys(chat1.attributes).filter((k) => k.startsWith('bridle.cache.') || k.includes('usage'))).toEqual(
      [],
    )
    expect(tool.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
      'gen_ai.conversation.id': 's-tool',
      'bridle.session.id': 's-tool',
      'bridle.turn': 1,
      'bridle.step': 1,
    })
    expect(root.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': 's-tool',
      'bridle.session.id': 's-tool',
      'bridle.turn': 1,
      'gen_ai.provider.name': 'mock',
      'gen_ai.request.model': 'm1',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 3,
      'bridle.turn.steps': 2,
      'bridle.turn.requests': 2,
      'bridle.turn.end_reason': 'completed',
    })
    for (const span of spans) expect(span.status).toEqual({ code: 'unset' })

    // the next turn is a trace of its own
    h.script.push(say('again'))
    await turn(h, agent, 'more')
    const ids = traceIdsOf(h.recorder.spans())
    expect(ids[4]).toBe(ids[5])
    expect(ids[4]).not.toBe(ids[0])
  })

  it('usage: cache reads and writes are counted inside input_tokens, as the conventions say', async () => {
    const h = tracedHarness()
    const agent = h.agent()
    const usage = { inputTokens: 10, outputTokens: 7, cacheReadTokens: 40, cacheWriteTokens: 5, reasoningTokens: 2 }
    h.script.push(() => [
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'block-end', index: 0, block: { type: 'text', text: 'hi' } },
      { type: 'usage', usage },
      { type: 'finish', reason: { kind: 'stop' } },
    ])
    await turn(h, agent, 'hello')
    const [chat, root] = plain(h.recorder.spans())
    expect(chat!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 55,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.usage.cache_read.input_tokens': 40,
      'gen_ai.usage.cache_creation.input_tokens': 5,
      'gen_ai.usage.reasoning.output_tokens': 2,
    })
    expect(root!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 55,
      'gen_ai.usage.cache_read.input_tokens': 40,
      'gen_ai.usage.cache_creation.input_tokens': 5,
      'gen_ai.usage.reasoning.output_tokens': 2,
    })
  })
})

describe('Bridle facts from the log', () => {
  it('a changed section: the header change reason, the section names and the cache break', async () => {
    const h = tracedHarness()
    const agent = h.agent()
    let dispose = h.ctx.systemPrompt.section({ name: 'rules:style', order: 60, text: 'Answer briefly.' })
    h.script.push(say('one'))
    await turn(h, agent, 'first')
    dispose()
    dispose = h.ctx.systemPrompt.section({ name: 'rules:style', order: 60, text: 'Answer at length.' })
    h.script.push(say('two'))
    await turn(h, agent, 'second')
    const chats = plain(h.recorder.spans()).filter((s) => s.kind === 'client')
    expect(chats[0]!.attributes).toMatchObject({
      'bridle.request.header_reason': 'initial',
      'bridle.request.sections': ['harness:identity', 'rules:style'],
    })
    expect(chats[1]!.attributes).toMatchObject({
      'bridle.request.header_reason': 'change',
      'bridle.request.sections': ['harness:identity', 'rules:style'],
      'bridle.cache.break': 'system',
      'bridle.cache.broken': ['system'],
      'bridle.cache.break_reason': 'system: section rules:style changed',
      'bridle.cache.sections_changed': ['rules:style changed'],
    })
    dispose()
  })

  it('message contents are off by default', async () => {
    const h = tracedHarness()
    const agent = h.agent()
    h.script.push(say('an answer'))
    await turn(h, agent, 'a question')
    for (const span of plain(h.recorder.spans())) {
      for (const key of Object.keys(span.attributes)) {
        expect(key).not.toMatch(
          /gen_ai\.(input|output)\.messages|system_instructions|tool\.definitions|call\.arguments|call\.result/,
        )
      }
    }
  })

  it('opt-in contents: input, output, system, tools, arguments and results, redacted', async () => {
    const secret = 'sk-live-0123456789abcdef'
    process.env.BRIDLE_API_KEY = 'env-secret-key-987654'
    try {
      const h = tracedHarness({ captureContent: true, secrets: [secret] })
      h.ctx.tools.register({
        name: 'echo',
        description: 'echoes',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
        execute: (args: { text: string }) => `echo ${args.text} env-secret-key-987654`,
      })
      await tick()
      const agent = h.agent()
      h.script.push(callTools({ id: 'e1', name: 'echo', args: JSON.stringify({ text: secret }) }), say(`ok ${secret}`))
      await turn(h, agent, `my key is ${secret}, see http://user:pw@example.test/x`)
      const spans = plain(h.recorder.spans())
      const everything = JSON.stringify(spans)
      expect(everything).not.toContain(secret)
      expect(everything).not.toContain('env-secret-key-987654')
      expect(everything).not.toContain('user:pw')
      const [chat1, tool, chat2] = spans as [any, any, any]
      expect(JSON.parse(chat1.attributes['gen_ai.input.messages'])).toEqual([
        {
          role: 'user',
          parts: [{ type: 'text', content: 'my key is [redacted], see http://[redacted]@example.test/x' }],
        },
      ])
      expect(JSON.parse(chat1.attributes['gen_ai.system_instructions'])).toEqual([
        { type: 'text', content: 'You are an AI agent powered by Bridle.' },
      ])
      expect(JSON.parse(chat1.attributes['gen_ai.tool.definitions'])).toEqual([
        {
          type: 'function',
          name: 'echo',
          description: 'echoes',
          parameters: { type: 'object', properties: { text: { type: 'string' } } },
        },
      ])
      expect(JSON.parse(chat1.attributes['gen_ai.output.messages'])).toEqual([
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'e1', name: 'echo', arguments: { text: '[redacted]' } }],
          finish_reason: 'tool_calls',
        },
      ])
      expect(tool.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"[redacted]"}')
      expect(tool.attributes['gen_ai.tool.call.result']).toBe('echo [redacted] [redacted]')
      const input = JSON.parse(chat2.attributes['gen_ai.input.messages'])
      expect(input.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool'])
      expect(input[2].parts).toEqual([{ type: 'tool_call_response', id: 'e1', response: 'echo [redacted] [redacted]' }])
      expect(JSON.parse(chat2.attributes['gen_ai.output.messages'])).toEqual([
        { role: 'assistant', parts: [{ type: 'text', content: 'ok [redacted]' }], finish_reason: 'stop' },
      ])
    } finally {
      delete process.env.BRIDLE_API_KEY
    }
  })
})
