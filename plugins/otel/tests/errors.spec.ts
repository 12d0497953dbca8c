/**
 * Error statuses of live spans: a failed model request, a retried one, a tool that throws, a cancelled turn (not an
 * error) and a blocked turn.
 */
import { HarnessError, type StreamChunk } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { callTools, eventOf, fail, plain, say, tick, tracedHarness, turn, user } from './support.js'

const chunkOf = (kind: string) => (d: any) => d.chunk?.type === kind

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
