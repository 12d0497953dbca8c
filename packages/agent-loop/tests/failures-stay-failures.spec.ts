/**
 * Errors must never turn into apparent success: a route that cannot be prepared, a stream that ends aborted, a
 * request without a provider or model each end the turn with that error, and nothing is logged as if it was sent or
 * answered. And what was answered is recorded whole (usage included).
 */
import { LlmError, type StreamChunk } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { boot, say, user, type Harness } from './harness.js'

function lastTurnEnd(agent: { session: { events: readonly { type: string; data: unknown }[] } }) {
  return agent.session.events.filter((e) => e.type === 'turn/end').at(-1)!.data as { reason: any }
}

const types = (agent: { session: { events: readonly { type: string }[] } }) => agent.session.events.map((e) => e.type)

/** Counts every pass through the `llm/stream` waterfall (prepared or not), i.e. every dispatch. */
function countDispatches(h: Harness): { count: number } {
  const seen = { count: 0 }
  h.ctx.on('llm/stream', (_options, next) => {
    seen.count++
    return next()
  })
  return seen
}

describe('a route that fails to prepare is a turn error, never an unprepared dispatch', () => {
  it.each<[string, () => Error, Record<string, unknown>]>([
    [
      'an LlmError other than NO_ADAPTER',
      () => new LlmError('model "gone" is not served here', 'UNKNOWN_MODEL'),
      { code: 'UNKNOWN_MODEL' },
    ],
    ['a plain error from the adapter', () => new Error('model catalogue unreachable'), {}],
  ])('%s', async (_name, makeError, extra) => {
    const h = boot()
    const error = makeError()
    h.ctx.llm.registerAdapter(['flaky'], {
      stream: say('never') as never,
      resolveModel: () => {
        throw error
      },
    })
    const dispatches = countDispatches(h)
    const agent = h.agent({ provider: 'flaky', model: 'gone' })
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(lastTurnEnd(agent).reason).toMatchObject({ kind: 'error', error: { message: error.message, ...extra } })
    expect(dispatches.count).toBe(0)
    // nothing claims a request was built or sent
    expect(types(agent).filter((t) => t.startsWith('request/') || t.startsWith('assistant/'))).toEqual([])
  })
})

describe('a stream that ends aborted while the agent was not cancelled', () => {
  const abortedStream = (): StreamChunk[] => [
    { type: 'block-start', index: 0, blockType: 'text' },
    { type: 'text-delta', index: 0, text: 'half an ans' },
    {
      type: 'finish',
      reason: { kind: 'aborted', failure: { message: 'upstream closed the stream', code: 'ABORTED' } },
    } as StreamChunk,
  ]

  it('is a failed request: request-error sees it, no assistant message, the turn ends with the failure', async () => {
    const h = boot()
    const failures: unknown[] = []
    h.ctx.on('agent/request-error', (payload, next) => {
      failures.push(payload.failure)
      return next()
    })
    const agent = h.agent()
    h.script.push(abortedStream)
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(failures).toEqual([{ message: 'upstream closed the stream', code: 'ABORTED' }])
    expect(types(agent)).not.toContain('assistant/message')
    expect(lastTurnEnd(agent).reason).toEqual({
      kind: 'error',
      error: { message: 'upstream closed the stream', code: 'ABORTED' },
    })
    expect(agent.session.deriveMessages().map((m) => m.role)).toEqual(['user'])
  })

  it('may be retried by request-error, and then only the retried answer is recorded', async () => {
    const h = boot()
    h.ctx.on('agent/request-error', () => ({ kind: 'retry' as const }))
    const agent = h.agent()
    h.script.push(abortedStream, say('whole answer'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.requests).toHaveLength(2)
    expect(lastTurnEnd(agent).reason).toEqual({ kind: 'completed' })
    const answers = agent.session.deriveMessages().filter((m) => m.role === 'assistant')
    expect(answers.map((m) => m.content)).toEqual([[{ type: 'text', text: 'whole answer' }]])
  })
})

describe('a request needs both a provider and a model', () => {
  const message = (id: string) =>
    `agent "${id}" has no provider/model: set AgentOptions.provider and AgentOptions.model or supply both via the agent/request waterfall`

  it.each<[string, { provider?: string; model?: string }]>([
    ['a model without a provider', { model: 'm1' }],
    ['a provider without a model', { provider: 'mock' }],
  ])('%s is a turn error naming the agent; nothing is dispatched', async (_name, options) => {
    const h = boot()
    const dispatches = countDispatches(h)
    const agent = h.ctx.agentLoop.create(options)
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(lastTurnEnd(agent).reason.error.message).toBe(message(agent.id))
    expect(dispatches.count).toBe(0)
    expect(types(agent).filter((t) => t.startsWith('request/'))).toEqual([])
  })

  it('an agent/request listener that drops the model, or returns nothing, fails the same way', async () => {
    for (const rewrite of [(seed: any) => ({ ...seed, model: '' }), () => undefined]) {
      const h = boot()
      h.ctx.on('agent/request', async (_p, next) => rewrite(await next()) as never)
      const agent = h.agent()
      agent.followup(user('p'))
      await agent.whenIdle()
      expect(lastTurnEnd(agent).reason.error.message).toBe(message(agent.id))
      expect(h.requests).toHaveLength(0)
    }
  })
})

describe('an answer is recorded whole', () => {
  it('assistant/message carries the usage the provider reported', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(say('hi', 4))
    agent.followup(user('p'))
    await agent.whenIdle()
    const data = agent.session.events.find((e) => e.type === 'assistant/message')!.data as Record<string, unknown>
    expect(data.usage).toEqual({ inputTokens: 10, outputTokens: 3, cacheReadTokens: 4 })
  })

  it('without reported usage the record has no usage field at all', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(() => (say('hi')({} as never) as StreamChunk[]).filter((c) => c.type !== 'usage'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const data = agent.session.events.find((e) => e.type === 'assistant/message')!.data as Record<string, unknown>
    expect(Object.keys(data).sort()).toEqual(['message', 'step', 'turn'])
  })
})
