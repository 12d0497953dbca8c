import { describe, expect, it } from 'vitest'
import type { StreamChunk } from '@bridle/llm'
import { boot, callTools, fail, say, user } from './harness.js'

const PROMPT = [
  'S:spliced next-turn @0 +[p]',
  'L:inserted p',
  'L:status running',
  'S:turn/start 1',
  'S:spliced next-turn @0 -1',
  'L:claimed p 1',
]

function started() {
  const h = boot()
  const agent = h.agent()
  h.trace.length = 0
  return { h, agent }
}

function lastTurnEnd(agent: { session: { events: readonly { type: string; data: unknown }[] } }) {
  return agent.session.events.filter((e) => e.type === 'turn/end').at(-1)!.data as { reason: any }
}

describe('stop boundaries', () => {
  it('B: a pre-step reject ends the turn blocked, consumes the prompt and parks other input', async () => {
    const { h, agent } = started()
    h.ctx.on('agent/pre-step', () => {
      agent.followup(user('q'))
      return { kind: 'reject' as const }
    })
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace).toEqual([
      ...PROMPT,
      'S:spliced next-turn @0 +[q]',
      'L:inserted q',
      'S:turn/end 1 blocked',
      'L:status idle',
    ])
    expect(agent.inbox.nextTurn.map((m) => (m.content[0] as any).text)).toEqual(['q'])
    expect(h.requests).toHaveLength(0)
  })

  it('B: a reject of a later proposal also ends the turn blocked', async () => {
    const { h, agent } = started()
    h.ctx.tools.register({ name: 't', description: 'd', parameters: { type: 'object' }, execute: () => 'ok' })
    h.ctx.on('agent/pre-step', ({ step }, next) => (step === 2 ? { kind: 'reject' as const } : next()))
    h.script.push(callTools({ id: 'c1', name: 't' }))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace.slice(-4)).toEqual(['S:tool/result c1', 'S:step/end 1.1', 'S:turn/end 1 blocked', 'L:status idle'])
  })

  it('C: an empty first enter completes the turn without a step and stops the driver with work pending', async () => {
    const { h, agent } = started()
    h.ctx.on('agent/pre-step', () => ({ kind: 'enter' as const, messages: [] }))
    agent.followup(user('p'))
    agent.followup(user('p2'))
    await agent.whenIdle()
    expect(h.trace.filter((t) => !t.includes('p2'))).toEqual([...PROMPT, 'S:turn/end 1 completed', 'L:status idle'])
    expect(agent.inbox.nextTurn).toHaveLength(1)
  })

  it('C: an empty proposal after a tool step still opens a step with zero user messages', async () => {
    const { h, agent } = started()
    h.ctx.tools.register({ name: 't', description: 'd', parameters: { type: 'object' }, execute: () => 'ok' })
    h.script.push(callTools({ id: 'c1', name: 't' }), say('done'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const i = h.trace.indexOf('S:step/start 1.2')
    expect(h.trace[i + 1]).toBe('S:request/digest 1.2#1')
  })

  it('D: a toolOrder entry naming an unregistered tool ends the turn with an error and no step', async () => {
    const h = boot({ systemPrompt: { toolOrder: ['ghost', '<unlisted-tools>'] } })
    const errors: unknown[] = []
    h.ctx.on('agent/error', ({ error }) => {
      errors.push(error)
    })
    const agent = h.agent()
    h.trace.length = 0
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace).toEqual([...PROMPT, 'L:error 1.0', 'S:turn/end 1 error:UNKNOWN', 'L:status idle'])
    expect(lastTurnEnd(agent).reason.error).toEqual({
      message: 'toolOrder lists unregistered tool "ghost"; known tools: (none)',
      code: 'UNKNOWN',
    })
    expect(errors).toHaveLength(1)
    expect(agent.session.requestHeader()).toBeUndefined()
  })

  it('E1: an unknown variable in a runtime context ends the turn before any step', async () => {
    const { h, agent } = started()
    h.ctx.systemPrompt.context({ name: 'env', order: 0, text: 'x={{x}}' })
    agent.followup(user('p'))
    await agent.whenIdle()
    // the failure keeps the error's own code (an interpolation error has one), not UNKNOWN
    expect(h.trace).toEqual([...PROMPT, 'L:error 1.0', 'S:turn/end 1 error:UNKNOWN_PROMPT_VARIABLE', 'L:status idle'])
    expect(lastTurnEnd(agent).reason.error.message).toBe(
      'unknown prompt variable "{{x}}" in context "env"; registered variables: provider, model, cwd',
    )
  })

  it('E2/X1: a valueless variable in a section fails after the inputs are durable; they reach the next request', async () => {
    const h = boot({ systemPrompt: { persona: 'In {{cwd}}.' } })
    const agent = h.agent()
    h.trace.length = 0
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace).toEqual([
      ...PROMPT,
      'S:step/start 1.1',
      'S:user/message p',
      'S:step/end 1.1',
      'L:error 1.1',
      'S:turn/end 1 error:PROMPT_VARIABLE_VALUE',
      'L:status idle',
    ])
    expect(lastTurnEnd(agent).reason.error.message).toBe(
      'prompt variable "{{cwd}}" has no value for this assembly (section "deployment:persona")',
    )
    h.ctx.on('system-prompt/assemble', (assembly, _context, next) => {
      assembly.variables.cwd = '/work'
      return next()
    })
    h.script.push(say('ok'))
    agent.followup(user('q'))
    await agent.whenIdle()
    expect(h.requests[0]!.system).toBe('You are an AI agent powered by Bridle.\n\nIn /work.')
    expect(h.requests[0]!.messages.map((m) => (m.content[0] as any).text)).toEqual(['p', 'q'])
  })

  it('X1: the loop variables follow the agent options', async () => {
    const h = boot({ systemPrompt: { persona: 'Model: {{model}} via {{provider}} in {{cwd}}.' } })
    const agent = h.agent({ cwd: '/srv/app' })
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.requests[0]!.system).toBe('You are an AI agent powered by Bridle.\n\nModel: m1 via mock in /srv/app.')
  })

  it('G: a model failure runs request-error, ends the turn with the failure unchanged', async () => {
    const { h, agent } = started()
    const seen: any[] = []
    h.ctx.on('agent/request-error', (payload, next) => {
      seen.push(payload)
      return next()
    })
    h.script.push(fail('SERVER', 'upstream down', { status: 503, requestId: 'req-1', providerRetryAfterMs: 250 }))
    const errors: unknown[] = []
    h.ctx.on('agent/error', ({ error }) => {
      errors.push(error)
    })
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace).toEqual([
      ...PROMPT,
      'S:step/start 1.1',
      'S:user/message p',
      'S:request/header initial',
      'S:request/context',
      'S:request/digest 1.1#1',
      'S:chunk finish',
      'S:step/end 1.1',
      'L:error 1.1',
      'S:turn/end 1 error:SERVER',
      'L:status idle',
    ])
    expect(lastTurnEnd(agent).reason.error).toEqual({
      message: 'upstream down',
      code: 'SERVER',
      status: 503,
      requestId: 'req-1',
      providerRetryAfterMs: 250,
    })
    expect(seen[0]).toMatchObject({ turn: 1, step: 1, provider: 'mock', failure: { code: 'SERVER' } })
    expect(seen[0].retryPolicy.retryableCodes).toContain('SERVER')
    expect((errors[0] as Error).name).toBe('LlmError')
    expect(agent.session.events.some((e) => e.type === 'assistant/message')).toBe(false)
  })

  it('a request-error retry restarts the attempt in the same step', async () => {
    const { h, agent } = started()
    h.ctx.on('agent/request-error', () => ({ kind: 'retry' as const }))
    h.script.push(fail('RATE_LIMIT'), say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace.slice(6)).toEqual([
      'S:step/start 1.1',
      'S:user/message p',
      'S:request/header initial',
      'S:request/context',
      'S:request/digest 1.1#1',
      'S:chunk finish',
      'S:request/digest 1.1#2',
      'S:chunk block-start',
      'S:chunk text-delta',
      'S:chunk block-end',
      'S:chunk usage',
      'S:chunk finish',
      'S:assistant/message 1.1',
      'S:step/end 1.1',
      'S:turn/end 1 completed',
      'L:status idle',
    ])
    expect(h.requests).toHaveLength(2)
    expect(h.requests[1]!.messages).toBe(h.requests[0]!.messages)
  })

  it('middleware failures skip request-error: a throwing agent/request listener', async () => {
    const { h, agent } = started()
    let requestErrors = 0
    h.ctx.on('agent/request-error', () => {
      requestErrors++
      return undefined
    })
    h.ctx.on('agent/request', () => {
      throw new Error('policy says no')
    })
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(lastTurnEnd(agent).reason).toEqual({ kind: 'error', error: { message: 'policy says no', code: 'UNKNOWN' } })
    expect(requestErrors).toBe(0)
    expect(h.trace).not.toContain('S:request/header initial')
  })

  it('an llm/stream listener writing to the loop-built request fails the turn (not a request-error)', async () => {
    const { h, agent } = started()
    let requestErrors = 0
    h.ctx.on('agent/request-error', () => {
      requestErrors++
      return undefined
    })
    h.ctx.on('llm/stream', (options, next) => {
      ;(options as { model: string }).model = 'other'
      return next()
    })
    h.script.push(say('never'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const reason = lastTurnEnd(agent).reason
    expect(reason.kind).toBe('error')
    expect(reason.error.message).toMatch(/read only|read-only|Cannot assign/)
    expect(requestErrors).toBe(0)
    expect(h.requests).toHaveLength(0)
  })

  it('a missing route is a turn error naming the agent', async () => {
    const h = boot()
    const agent = h.ctx.agentLoop.create()
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(lastTurnEnd(agent).reason.error.message).toBe(
      `agent "${agent.id}" has no provider/model: set AgentOptions.provider and AgentOptions.model or supply both via the agent/request waterfall`,
    )
  })

  it('H/X5: a direct surface append during agent/request is caught by verifyRequests; the adapter is never called', async () => {
    const { h, agent } = started()
    expect(h.ctx.agentLoop.config.verifyRequests).toBe(true)
    h.ctx.on('agent/request', (payload, next) => {
      payload.agent.session.append('user/message', user('note'), { surfaceOp: 'append' })
      return next()
    })
    const errors: any[] = []
    h.ctx.on('agent/error', ({ error }) => {
      errors.push(error)
    })
    h.script.push(say('never'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace.slice(6)).toEqual([
      'S:step/start 1.1',
      'S:user/message p',
      'S:user/message note',
      'S:request/header initial',
      'S:request/context',
      'S:step/end 1.1',
      'L:error 1.1',
      'S:turn/end 1 error:UNKNOWN',
      'L:status idle',
    ])
    expect(errors[0].code).toBe('INVARIANT')
    expect(lastTurnEnd(agent).reason.error.message).toBe(
      `llm request for session "${agent.id}" diverges from the dispatch-time durable derivation (log-reconstruction desync)`,
    )
    expect(h.requests).toHaveLength(0)
  })

  it('X5: inject is the correct call; the note enters step 2 of the same turn', async () => {
    const { h, agent } = started()
    let injected = false
    h.ctx.on('agent/request', (payload, next) => {
      if (!injected) {
        injected = true
        payload.agent.inject(user('note'))
      }
      return next()
    })
    h.script.push(say('first'), say('second'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.requests).toHaveLength(2)
    expect((h.requests[1]!.messages.at(-1)!.content[0] as any).text).toBe('note')
    expect(h.trace).toContain('S:turn/end 1 completed')
  })

  it('max-tokens: tool calls are dropped, nothing runs, the turn ends max-tokens', async () => {
    const { h, agent } = started()
    let ran = 0
    h.ctx.tools.register({ name: 't', description: 'd', parameters: { type: 'object' }, execute: () => String(++ran) })
    h.script.push(() => {
      const chunks = (callTools({ id: 'c1', name: 't' })(undefined as never) as StreamChunk[]).slice(0, -1)
      return [...chunks, { type: 'finish', reason: { kind: 'max-tokens' } }]
    })
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(ran).toBe(0)
    expect(h.trace).not.toContain('S:tool/call c1')
    expect(h.trace.slice(-3)).toEqual(['S:step/end 1.1', 'S:turn/end 1 max-tokens', 'L:status idle'])
  })

  it('an unprepared route (NO_ADAPTER) is served by an llm/stream listener', async () => {
    const { h } = started()
    const agent = h.ctx.agentLoop.create({ provider: 'served', model: 'x' })
    h.ctx.on('llm/stream', (options, next) =>
      options.provider === 'served' ? (say('from listener')(options) as never) : next(),
    )
    agent.followup(user('p'))
    await agent.whenIdle()
    const context = agent.session.events.find((e) => e.type === 'request/context')!
    expect(context.data).toEqual({ provider: 'served', model: 'x' })
    expect(lastTurnEnd(agent).reason).toEqual({ kind: 'completed' })
  })
})
