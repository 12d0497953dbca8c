import { describe, expect, it } from 'vitest'
import type { GenerateOptions, StreamChunk } from '@bridle/llm'
import { boot, callTools, say, user, type Responder } from './harness.js'

const PROMPT = [
  'S:spliced next-turn @0 +[p]',
  'L:inserted p',
  'L:status running',
  'S:turn/start 1',
  'S:spliced next-turn @0 -1',
  'L:claimed p 1',
]
const USER = { kind: 'user' } as const

/** A response that never ends on its own: it rejects with the signal's reason when the turn aborts. */
const hang: Responder = (request: GenerateOptions) =>
  (async function* (): AsyncGenerator<StreamChunk> {
    await new Promise((_, reject) => {
      const signal = request.signal!
      if (signal.aborted) reject(signal.reason)
      signal.addEventListener('abort', () => reject(signal.reason), { once: true })
    })
  })()

function started() {
  const h = boot()
  const agent = h.agent()
  h.trace.length = 0
  return { h, agent }
}

function turnEnds(agent: { session: { events: readonly { type: string; data: any }[] } }) {
  return agent.session.events.filter((e) => e.type === 'turn/end').map((e) => e.data)
}

describe('cancellation at each await point', () => {
  it('in an agent/status(running) listener: no turn events; a later waking send is latched and replayed', async () => {
    const { h, agent } = started()
    let once = true
    h.ctx.on('agent/status', ({ status }) => {
      if (status !== 'running' || !once) return
      once = false
      agent.cancel(USER)
      agent.steer(user('b'))
    })
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace).toEqual([
      'S:spliced next-turn @0 +[p]',
      'L:inserted p',
      'L:status running',
      'S:spliced next-turn @0 -1 canceled',
      'L:discarded p',
      'S:spliced next-turn @0 +[b]',
      'L:inserted b',
      'L:status idle',
      'L:status running',
      'S:turn/start 1',
      'S:spliced next-turn @0 -1',
      'L:claimed b 1',
      'S:step/start 1.1',
      'S:user/message b',
      'S:request/header initial',
      'S:request/context',
      'S:request/digest 1.1#1',
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
  })

  it('a dispose in an agent/status(running) listener latches nothing', async () => {
    const { h, agent } = started()
    let disposing: Promise<void> | undefined
    h.ctx.on('agent/status', ({ status }) => {
      if (status !== 'running' || disposing) return
      disposing = agent.dispose()
      agent.steer(user('late'))
    })
    agent.followup(user('p'))
    await disposing
    expect(h.trace.filter((t) => t.startsWith('S:turn'))).toEqual([])
    expect(h.requests).toHaveLength(0)
    expect(agent.status).toBe('idle')
  })

  for (const where of ['system-prompt/assemble', 'agent/pre-step'] as const) {
    it(`F1: in ${where}: turn/start, the claim, canceled splices, turn/end aborted`, async () => {
      const { h, agent } = started()
      h.ctx.on(
        where as 'agent/pre-step',
        ((...args: any[]) => {
          agent.followup(user('q'))
          agent.cancel(USER)
          return args.at(-1)()
        }) as never,
      )
      agent.followup(user('p'))
      await agent.whenIdle()
      expect(h.trace).toEqual([
        ...PROMPT,
        'S:spliced next-turn @0 +[q]',
        'L:inserted q',
        'S:spliced next-turn @0 -1 canceled',
        'L:discarded q',
        'S:turn/end 1 aborted:user',
        'L:status idle',
      ])
      expect(turnEnds(agent)[0].reason.reason).toEqual(USER)
    })
  }

  it('in a step/start observer: step/start, user messages, step/end, turn/end aborted, no request', async () => {
    const { h, agent } = started()
    h.ctx.on('session/event', (_s, event) => {
      if (event.type === 'step/start') agent.cancel(USER)
    })
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace).toEqual([
      ...PROMPT,
      'S:step/start 1.1',
      'S:user/message p',
      'S:step/end 1.1',
      'S:turn/end 1 aborted:user',
      'L:status idle',
    ])
  })

  it('F2: in agent/request: no request/header; canceled splices inside the step', async () => {
    const { h, agent } = started()
    h.ctx.on('agent/request', (_p, next) => {
      agent.cancel(USER)
      return next()
    })
    agent.followup(user('p'))
    agent.followup(user('q'))
    await agent.whenIdle()
    expect(h.trace.slice(PROMPT.length + 2)).toEqual([
      'S:step/start 1.1',
      'S:user/message p',
      'S:spliced next-turn @0 -1 canceled',
      'L:discarded q',
      'S:step/end 1.1',
      'S:turn/end 1 aborted:user',
      'L:status idle',
    ])
  })

  it('F2: in prepareCall (the signal reaches resolveModel): no request/header', async () => {
    const { h } = started()
    const self = h.ctx.agentLoop.create({ provider: 'slow', model: 'm' })
    let sawSignal: AbortSignal | undefined
    h.ctx.llm.registerAdapter(['slow'], {
      stream: say('never') as never,
      resolveModel(provider: string, model: string, signal?: AbortSignal) {
        sawSignal = signal
        self.cancel(USER)
        return { provider, id: model, name: model }
      },
    })
    h.trace.length = 0
    self.followup(user('p'))
    await self.whenIdle()
    expect(sawSignal?.aborted).toBe(true)
    expect(h.trace.slice(PROMPT.length)).toEqual([
      'S:step/start 1.1',
      'S:user/message p',
      'S:step/end 1.1',
      'S:turn/end 1 aborted:user',
      'L:status idle',
    ])
  })

  it('F2: in a request/header observer: the header stays, nothing is dispatched', async () => {
    const { h, agent } = started()
    h.ctx.on('session/event', (_s, event) => {
      if (event.type === 'request/header') agent.cancel(USER)
    })
    h.script.push(say('never'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace.slice(PROMPT.length)).toEqual([
      'S:step/start 1.1',
      'S:user/message p',
      'S:request/header initial',
      'S:request/context',
      'S:step/end 1.1',
      'S:turn/end 1 aborted:user',
      'L:status idle',
    ])
    expect(h.requests).toHaveLength(0)
  })

  it('mid-stream: the chunks logged so far stay, no assistant/message', async () => {
    const { h, agent } = started()
    h.script.push(() =>
      (async function* (): AsyncGenerator<StreamChunk> {
        yield { type: 'block-start', index: 0, blockType: 'text' }
        agent.cancel(USER)
        yield { type: 'text-delta', index: 0, text: 'x' }
        yield { type: 'finish', reason: { kind: 'stop' } }
      })(),
    )
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace.slice(-5)).toEqual([
      'S:request/digest 1.1#1',
      'S:chunk block-start',
      'S:step/end 1.1',
      'S:turn/end 1 aborted:user',
      'L:status idle',
    ])
  })

  it('a hanging stream ends aborted when cancelled from outside', async () => {
    const { h, agent } = started()
    h.script.push(hang)
    agent.followup(user('p'))
    await new Promise((r) => setTimeout(r, 5))
    agent.cancel(USER)
    await agent.whenIdle()
    expect(turnEnds(agent)).toEqual([{ turn: 1, reason: { kind: 'aborted', reason: USER } }])
    expect(h.trace).not.toContain('S:assistant/message 1.1')
  })

  it('in an assistant/message observer: each call gets tool/call and a synthetic result; no body runs', async () => {
    const { h, agent } = started()
    let ran = 0
    h.ctx.tools.register({
      name: 't',
      description: 'd',
      parameters: { type: 'object' },
      concurrencySafe: true,
      execute: () => String(++ran),
    })
    h.ctx.on('session/event', (_s, event) => {
      if (event.type === 'assistant/message') agent.cancel(USER)
    })
    h.script.push(callTools({ id: 'c1', name: 't' }, { id: 'c2', name: 't' }))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(ran).toBe(0)
    expect(h.trace.slice(-8)).toEqual([
      'S:assistant/message 1.1',
      'S:tool/call c1',
      'S:tool/result c1 ABORTED_BEFORE_DISPATCH',
      'S:tool/call c2',
      'S:tool/result c2 ABORTED_BEFORE_DISPATCH',
      'S:step/end 1.1',
      'S:turn/end 1 aborted:user',
      'L:status idle',
    ])
    const result = agent.session.events.find((e) => e.type === 'tool/result')!.data as any
    expect(result.message.content[0].content).toEqual([
      { type: 'text', text: 'Error: tool call aborted before dispatch' },
    ])
    expect(result.message.content[0].isError).toBe(true)
    expect(result.error).toEqual({ name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' })
  })

  it('in agent/request-error: the retry is ignored', async () => {
    const { h, agent } = started()
    h.ctx.on('agent/request-error', () => {
      agent.cancel(USER)
      return { kind: 'retry' as const }
    })
    h.script.push(
      () => [{ type: 'finish', reason: { kind: 'error', failure: { message: 'x', code: 'SERVER' } } }],
      say('never'),
    )
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.requests).toHaveLength(1)
    expect(h.trace.slice(-4)).toEqual([
      'S:chunk finish',
      'S:step/end 1.1',
      'S:turn/end 1 aborted:user',
      'L:status idle',
    ])
  })

  it('in agent/turn-stopping: turn/end aborted with no further step', async () => {
    const { h, agent } = started()
    h.ctx.on('agent/turn-stopping', () => {
      agent.cancel(USER)
    })
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace.slice(-4)).toEqual([
      'S:assistant/message 1.1',
      'S:step/end 1.1',
      'S:turn/end 1 aborted:user',
      'L:status idle',
    ])
  })

  it('no agent/error is emitted for a cancellation; the first cause wins', async () => {
    const { h, agent } = started()
    const errors: unknown[] = []
    h.ctx.on('agent/error', (p) => {
      errors.push(p)
    })
    h.script.push(hang)
    agent.followup(user('p'))
    await new Promise((r) => setTimeout(r, 5))
    const first = { kind: 'hook' as const, reason: 'policy' }
    agent.cancel(first)
    agent.cancel(USER)
    await agent.dispose()
    expect(errors).toEqual([])
    expect(turnEnds(agent)[0].reason).toEqual({ kind: 'aborted', reason: first })
  })

  it('X3: keepInbox parks input; a steer after the cancel becomes the next turn and is replayed', async () => {
    const { h, agent } = started()
    h.script.push(hang, say('for b'))
    agent.followup(user('a'))
    await new Promise((r) => setTimeout(r, 5))
    agent.inject(user('parked'))
    agent.cancel(USER, { keepInbox: true })
    agent.steer(user('b'))
    expect(agent.inbox.nextTurn.map((m) => (m.content[0] as any).text)).toEqual(['b'])
    await agent.whenIdle()
    expect(turnEnds(agent).map((d) => d.reason.kind)).toEqual(['aborted', 'completed'])
    expect(h.trace.filter((t) => t.startsWith('L:status'))).toEqual([
      'L:status running',
      'L:status idle',
      'L:status running',
      'L:status idle',
    ])
    const second = h.requests[1]!.messages.map((m) => (m.content[0] as any).text)
    expect(second.slice(-2)).toEqual(['parked', 'b'])
  })

  it('dispose cancels with {kind:"disposed"} and durably drops queued prompts', async () => {
    const { h, agent } = started()
    h.script.push(hang)
    agent.followup(user('p'))
    agent.followup(user('queued'))
    await new Promise((r) => setTimeout(r, 5))
    await agent.dispose()
    expect(turnEnds(agent)).toEqual([{ turn: 1, reason: { kind: 'aborted', reason: { kind: 'disposed' } } }])
    expect(h.trace).toContain('S:spliced next-turn @0 -1 canceled')
    expect(agent.inbox.hasPending).toBe(false)
    expect(h.ctx.agentLoop.get(agent.id)).toBeUndefined()
  })

  it('a user cancel followed by dispose keeps the user cause', async () => {
    const { h, agent } = started()
    h.script.push(hang)
    agent.followup(user('p'))
    await new Promise((r) => setTimeout(r, 5))
    agent.cancel(USER)
    await agent.dispose()
    expect(turnEnds(agent)[0].reason).toEqual({ kind: 'aborted', reason: USER })
  })

  it('an idle cancel clears the inbox durably and arms nothing', async () => {
    const { h, agent } = started()
    agent.inject(user('n'))
    agent.cancel(USER)
    expect(h.trace).toEqual([
      'S:spliced next-step @0 +[n]',
      'L:inserted n',
      'S:spliced next-step @0 -1 canceled',
      'L:discarded n',
    ])
    agent.cancel(USER)
    expect(h.trace).toHaveLength(4)
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(turnEnds(agent)[0].reason).toEqual({ kind: 'completed' })
  })
})
