/**
 * The live spans of real agent turns, read back from the SDK's in-memory exporter: names, kinds, parents, the
 * conventions' attribute names and values, Bridle's own facts, the times of the log's events, and error statuses.
 */
import { HarnessError, type StreamChunk } from '@bridle/llm'
import type { AnySessionEvent } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { callTools, fail, plain, say, tick, tracedHarness, traceIdsOf, user } from './support.js'

type Agent = ReturnType<ReturnType<typeof tracedHarness>['agent']>

/** The first event of the agent's log that matches. */
function eventOf(agent: Agent, type: string, match: (data: any) => boolean = () => true): AnySessionEvent {
  const found = agent.session.events.find((e) => e.type === type && match(e.data))
  if (found === undefined) throw new Error(`no ${type} event`)
  return found
}

const chunkOf = (kind: string) => (d: any) => d.chunk?.type === kind

async function turn(_h: ReturnType<typeof tracedHarness>, agent: Agent, text: string) {
  agent.followup(user(text))
  await agent.whenIdle()
}

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
    })
  })
})

describe('error status', () => {
  it('a failed model request: the chat span and the turn are errors with the failure code', async () => {
    const h = tracedHarness()
    const agent = h.agent()
    h.script.push(fail('RATE_LIMIT', 'slow down', { status: 429, requestId: 'req-42' }))
    await turn(h, agent, 'hi')
    const [chat, root] = plain(h.recorder.spans())
    expect(chat!.status).toEqual({ code: 'error', message: 'slow down' })
    expect(chat!.attributes).toMatchObject({
      'error.type': 'RATE_LIMIT',
      'http.response.status_code': 429,
      'bridle.failure.request_id': 'req-42',
      'bridle.finish': 'error',
    })
    expect(chat!.attributes['gen_ai.response.finish_reasons']).toBeUndefined()
    expect(chat!.end).toBe(eventOf(agent, 'assistant/chunk', chunkOf('finish')).time)
    expect(root!.status).toEqual({ code: 'error', message: 'slow down' })
    expect(root!.attributes).toMatchObject({ 'error.type': 'RATE_LIMIT', 'bridle.turn.end_reason': 'error' })
  })

  it('a retried request: one chat span per attempt, the failed one an error, the retry fine', async () => {
    const h = tracedHarness()
    let retries = 0
    h.ctx.on('agent/request-error', () => (retries++ === 0 ? { kind: 'retry' as const } : undefined))
    const agent = h.agent()
    h.script.push(fail('SERVER', 'bad gateway', { status: 502 }), say('second time lucky'))
    await turn(h, agent, 'hi')
    const spans = plain(h.recorder.spans())
    expect(spans.map((s) => [s.name, s.attributes['bridle.attempt'], s.status.code, s.parent])).toEqual([
      ['chat m1', 1, 'error', 2],
      ['chat m1', 2, 'unset', 2],
      ['invoke_agent', undefined, 'unset', null],
    ])
    expect(spans[0]!.attributes['error.type']).toBe('SERVER')
    expect(spans[1]!.attributes).toMatchObject({ 'bridle.step': 1, 'bridle.request.header_reason': 'unchanged' })
    expect(spans[2]!.attributes).toMatchObject({ 'bridle.turn.steps': 1, 'bridle.turn.requests': 2 })
  })

  it('a tool that throws is an error span; a coded HarnessError gives its code as error.type', async () => {
    const h = tracedHarness()
    h.ctx.tools.register({
      name: 'burn',
      description: 'fails',
      parameters: { type: 'object' },
      execute: () => {
        throw new Error('disk on fire')
      },
    })
    h.ctx.tools.register({
      name: 'quota',
      description: 'refuses',
      parameters: { type: 'object' },
      execute: () => {
        throw new HarnessError('out of quota', 'QUOTA_EXCEEDED')
      },
    })
    await tick()
    const agent = h.agent()
    h.script.push(callTools({ id: 'b1', name: 'burn' }, { id: 'q1', name: 'quota' }), say('sorry'))
    await turn(h, agent, 'go')
    const tools = plain(h.recorder.spans()).filter((s) => s.name.startsWith('execute_tool'))
    expect(tools.map((s) => [s.name, s.status, s.attributes['error.type']])).toEqual([
      ['execute_tool burn', { code: 'error', message: 'burn failed (TOOL_ERROR)' }, 'TOOL_ERROR'],
      ['execute_tool quota', { code: 'error', message: 'quota failed (QUOTA_EXCEEDED)' }, 'QUOTA_EXCEEDED'],
    ])
  })

  it('a cancelled turn is not an error: end_reason aborted, with who cancelled', async () => {
    const h = tracedHarness()
    const agent = h.agent()
    let dispatched!: () => void
    const started = new Promise<void>((resolve) => (dispatched = resolve))
    h.script.push((request) => ({
      async *[Symbol.asyncIterator](): AsyncIterator<StreamChunk> {
        yield { type: 'block-start', index: 0, blockType: 'text' }
        dispatched()
        await new Promise<void>((resolve) => request.signal!.addEventListener('abort', () => resolve()))
        throw request.signal!.reason
      },
    }))
    agent.followup(user('long one'))
    await started
    agent.cancel({ kind: 'user' })
    await agent.whenIdle()
    const [chat, root] = plain(h.recorder.spans())
    expect(chat!.status.code).toBe('unset')
    // no finish chunk was logged: the attempt ends where its step ended
    expect(chat!.end).toBe(eventOf(agent, 'step/end').time)
    expect(root!.status.code).toBe('unset')
    expect(root!.attributes).toMatchObject({ 'bridle.turn.end_reason': 'aborted', 'bridle.turn.abort_reason': 'user' })
  })

  it('a blocked turn: one invoke_agent span with no step and no request', async () => {
    const h = tracedHarness()
    h.ctx.on('agent/pre-step', () => ({ kind: 'reject' as const }))
    const agent = h.agent()
    await turn(h, agent, 'not allowed')
    const spans = plain(h.recorder.spans())
    expect(spans).toHaveLength(1)
    expect(spans[0]!.attributes).toMatchObject({
      'bridle.turn.end_reason': 'blocked',
      'bridle.turn.steps': 0,
      'bridle.turn.requests': 0,
    })
    expect(spans[0]!.attributes['gen_ai.provider.name']).toBeUndefined()
    expect(spans[0]!.status.code).toBe('unset')
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
