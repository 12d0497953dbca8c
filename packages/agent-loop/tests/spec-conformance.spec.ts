import { describe, expect, it } from 'vitest'
import { Logger } from 'cordis'
import {
  Agent,
  AgentLoop,
  Config,
  DEFAULT_MAX_PARALLEL_TOOL_CALLS,
  RUNTIME_CONTEXT_CLEARED,
  verifyRequest,
} from '@bridle/agent-loop'
import { Inbox } from '@bridle/inbox'
import { ConfigError, createUserMessage, HarnessError, type GenerateOptions, type StreamChunk } from '@bridle/llm'
import { boot, callTools, deferred, fail, say, tick, user, type Responder } from './harness.js'
import { takeLogLines } from '../../../tests/support/logs.js'

/*
 * Black-box checks of the loop's documented rules (README.md, docs/step-pipeline.md, docs/tool-calls.md) that the
 * other test files do not pin: exports, publication and rollback, the full canonical event order of a turn with its
 * waterfalls, the remaining stop-boundary rows, inbox routing edge cases and scheduler reclassification.
 */

const USER = { kind: 'user' } as const
const PROMPT = [
  'S:spliced next-turn @0 +[p]',
  'L:inserted p',
  'L:status running',
  'S:turn/start 1',
  'S:spliced next-turn @0 -1',
  'L:claimed p 1',
]

/** A response that never ends on its own: it rejects with the signal's reason when the turn aborts. */
const hang: Responder = (request: GenerateOptions) =>
  (async function* (): AsyncGenerator<StreamChunk> {
    await new Promise((_, reject) => {
      const signal = request.signal!
      if (signal.aborted) reject(signal.reason)
      signal.addEventListener('abort', () => reject(signal.reason), { once: true })
    })
  })()

const texts = (messages: readonly { content: readonly unknown[] }[]) =>
  messages.map((m) => (m.content[0] as { text?: string; type: string }).text ?? (m.content[0] as { type: string }).type)

function turnEnds(agent: Agent) {
  return agent.session.events.filter((e) => e.type === 'turn/end').map((e) => e.data as { turn: number; reason: any })
}

function captureWarnings() {
  const warned: string[] = []
  const target = {
    colors: 0,
    record(r: { type: string; content: string }) {
      if (r.type === 'warn') warned.push(r.content)
    },
  }
  Logger.targets.push(target)
  return { warned, restore: () => Logger.targets.splice(Logger.targets.indexOf(target), 1) }
}

describe('exports and the plugin', () => {
  it('AgentLoop is the named plugin export with the documented inject list; Agent and the cap default are exported', () => {
    expect(typeof AgentLoop).toBe('function')
    expect(AgentLoop.inject).toEqual(['sessions', 'llm', 'tools', 'systemPrompt'])
    expect(DEFAULT_MAX_PARALLEL_TOOL_CALLS).toBe(10)
    expect(typeof Agent).toBe('function')
    const h = boot()
    const agent = h.agent()
    expect(agent).toBeInstanceOf(Agent)
    expect(h.ctx.agentLoop.config).toEqual({ maxParallelToolCalls: 10, verifyRequests: true, agents: [] })
  })

  it('AgentLoop.Config(raw) resolves; a bad cap is a ConfigError of plugin agent-loop', () => {
    expect(AgentLoop.Config({ maxParallelToolCalls: 3 })).toMatchObject({ maxParallelToolCalls: 3 })
    expect(Config).toBe(AgentLoop.Config)
    let thrown: unknown
    try {
      AgentLoop.Config({ maxParallelToolCalls: 0 })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ConfigError)
    expect((thrown as Error).message).toMatch(
      /^agent-loop: invalid config: .*maxParallelToolCalls must be a positive integer/,
    )
    const h = boot({ loop: { maxParallelToolCalls: 4 } })
    expect(h.ctx.agentLoop.config.maxParallelToolCalls).toBe(4)
  })
})

describe('create, publication and rollback', () => {
  it('a throwing setup rolls back: nothing announced, agent-local registrations unwound, the id is free', () => {
    const h = boot()
    const sessionEvents: string[] = []
    h.ctx.on('session/created', (s) => {
      sessionEvents.push(`created ${s.id}`)
    })
    h.ctx.on('session/disposed', (s) => {
      sessionEvents.push(`disposed ${s.id}`)
    })
    let seen: Agent | undefined
    expect(() =>
      h.agent({
        sessionId: 'z',
        setup(agent) {
          seen = agent
          agent.ctx.tools.register({
            name: 'mine',
            description: 'd',
            parameters: { type: 'object' },
            execute: () => '',
          })
          throw new Error('bad setup')
        },
      }),
    ).toThrow('bad setup')
    expect(h.trace).toEqual([])
    expect(sessionEvents).toEqual([])
    expect(h.ctx.tools.get('mine', seen!)).toBeUndefined()
    expect(h.ctx.agentLoop.list()).toEqual([])
    expect(h.agent({ sessionId: 'z' }).id).toBe('z')
  })

  it('setup registrations precede publication: agent.ctx listeners hear their own session/created only', () => {
    const h = boot()
    const heard: string[] = []
    h.agent({
      sessionId: 'a',
      setup(agent) {
        agent.ctx.on('session/created', (s) => {
          heard.push(`session/created ${s.id}`)
        })
        agent.ctx.on('agent/created', ({ agent: who }) => {
          heard.push(`agent/created ${who.id}`)
        })
      },
    })
    h.agent({ sessionId: 'b' })
    expect(heard).toEqual(['session/created a', 'agent/created a'])
  })

  it('agent/session-start listener failures are contained; create still succeeds', () => {
    const h = boot()
    h.ctx.on('agent/session-start', () => {
      throw new Error('session-start bug')
    })
    const agent = h.agent({ sessionId: 'ok' })
    expect(h.ctx.agentLoop.get('ok')).toBe(agent)
    expect(h.trace).toEqual(['L:created', 'L:session-start startup'])
    expect(takeLogLines()).toEqual([
      'warn agent-loop: agent event "agent/session-start" listener threw: session-start bug',
    ])
  })

  it('AgentOptions are kept (frozen) and agent.id equals the session id', () => {
    const h = boot()
    const agent = h.agent({ maxTokens: 5 })
    expect(agent.options).toEqual({ provider: 'mock', model: 'm1', maxTokens: 5 })
    expect(Object.isFrozen(agent.options)).toBe(true)
    expect(agent.id).toBe(agent.session.id)
    expect(agent.status).toBe('idle')
  })
})

describe('resume and configured agents', () => {
  it('a live id is refused up front, before persistence is touched', async () => {
    const h = boot()
    let prepared = 0
    h.ctx.set('sessionPersistence', {
      prepare: async () => {
        prepared++
        throw new Error('should not be called')
      },
      list: async () => [],
    })
    h.agent({ sessionId: 'live' })
    await expect(h.ctx.agentLoop.resume('live')).rejects.toThrow('session "live" already exists')
    expect(prepared).toBe(0)
  })

  it('a failed config-driven resume warns with the documented wording', async () => {
    const { warned, restore } = captureWarnings()
    try {
      const h = boot({ loop: { agents: [{ id: 'r', resumeSessionId: 'ghost' }] } })
      h.ctx.set('sessionPersistence', {
        prepare: async (id: string) => {
          throw new Error(`session "${id}" not found`)
        },
        list: async () => [],
      })
      await new Promise((r) => setTimeout(r, 5))
      expect(warned).toContain('agent "r": config-driven resume of "ghost" failed: session "ghost" not found')
    } finally {
      restore()
    }
  })

  it('a failed config-driven create of an exact session id warns as a restore', async () => {
    const { warned, restore } = captureWarnings()
    try {
      const h = boot({ loop: { agents: [{ id: 'c', sessionId: 'taken' }] } })
      h.agent({ sessionId: 'taken' })
      const failures: string[] = []
      h.ctx.on('agent-loop/config-start-failed', ({ sessionId }) => {
        failures.push(sessionId)
      })
      // The exact id is held by a live agent that never detaches; dispose it so the start proceeds and fails later.
      await new Promise((r) => setTimeout(r, 5))
      expect(failures).toEqual([])
      const blocker = h.ctx.agentLoop.get('taken')!
      h.ctx.on('session/disposed', () => {
        // re-occupy the id right after it detaches, so the config-driven create fails
        if (!h.ctx.sessions.get('taken')) h.ctx.agentLoop.create({ sessionId: 'taken' })
      })
      await blocker.dispose()
      await new Promise((r) => setTimeout(r, 5))
      expect(failures).toEqual(['taken'])
      expect(warned).toContain('agent "c": config-driven restore of "taken" failed: session "taken" already exists')
    } finally {
      restore()
    }
  })
})

describe('system-prompt variables', () => {
  it('follow AgentOptions, not a model an agent/request listener switched to', async () => {
    const h = boot({ systemPrompt: { persona: 'Model: {{model}}.' } })
    h.ctx.on('agent/request', async (_p, next) => ({ ...(await next()), model: 'm2' }))
    const agent = h.agent()
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.requests[0]!.model).toBe('m2')
    expect(h.requests[0]!.system).toBe('You are an AI agent powered by Bridle.\n\nModel: m1.')
  })
})

describe('dispose', () => {
  it('is memoized; scope first, then agent/disposed, then session/disposed', async () => {
    const h = boot()
    const order: string[] = []
    const agent = h.agent({
      sessionId: 'd',
      setup(a) {
        a.ctx.tools.register({ name: 'mine', description: 'd', parameters: { type: 'object' }, execute: () => '' })
      },
    })
    h.ctx.on('agent/disposed', ({ agent: who }) => {
      order.push(`agent/disposed ${who.id} tool:${h.ctx.tools.get('mine', who) ? 'present' : 'gone'}`)
    })
    h.ctx.on('session/disposed', (s) => {
      order.push(`session/disposed ${s.id}`)
    })
    const first = agent.dispose()
    expect(agent.dispose()).toBe(first)
    await first
    await agent.dispose()
    expect(order).toEqual(['agent/disposed d tool:gone', 'session/disposed d'])
  })
})

describe('the full canonical order, with waterfalls and payloads', () => {
  it('normal turn with one tool call (and its context), then a follow-up step', async () => {
    const h = boot()
    const signals = new Set<AbortSignal>()
    const payloads: Record<string, any[]> = { preStep: [], request: [], stopping: [] }
    h.ctx.tools.register({
      name: 'read_file',
      description: 'Read.',
      parameters: { type: 'object' },
      concurrencySafe: true,
      execute: (_args: unknown, exec: any) => {
        signals.add(exec.signal)
        exec.deferContext(user('ctx'))
        return 'contents'
      },
    })
    const agent = h.agent()
    h.ctx.on('system-prompt/assemble', (_assembly, context, next) => {
      h.trace.push('W:system-prompt/assemble')
      signals.add((context as { signal: AbortSignal }).signal)
      expect((context as { agent?: Agent }).agent).toBe(agent)
      return next()
    })
    h.ctx.on('agent/pre-step', (payload, next) => {
      h.trace.push(`W:agent/pre-step ${payload.turn}.${payload.step} [${texts(payload.messages).join(',')}]`)
      payloads.preStep!.push(payload)
      signals.add(payload.signal)
      return next()
    })
    h.ctx.on('agent/request', (payload, next) => {
      h.trace.push(`W:agent/request ${payload.turn}.${payload.step}`)
      payloads.request!.push(payload)
      signals.add(payload.signal)
      return next()
    })
    h.ctx.on('llm/stream', (options, next) => {
      h.trace.push('W:llm/stream')
      signals.add(options.signal!)
      return next()
    })
    h.ctx.on('tools/pre-execute', (_exec, next) => {
      h.trace.push('W:tools/pre-execute')
      return next()
    })
    h.ctx.on('tools/execute', (_exec, next) => {
      h.trace.push('W:tools/execute')
      return next()
    })
    h.ctx.on('tools/post-execute', (_exec, _result, next) => {
      h.trace.push('W:tools/post-execute')
      return next()
    })
    h.ctx.on('tools/result', () => {
      h.trace.push('L:tools/result')
    })
    h.ctx.on('agent/turn-stopping', (payload) => {
      h.trace.push(`R:agent/turn-stopping ${payload.turn}`)
      payloads.stopping!.push(payload)
      signals.add(payload.signal)
    })
    h.trace.length = 0
    h.script.push(callTools({ id: 'c1', name: 'read_file' }), say('done'))
    agent.followup(user('m1'))
    await agent.whenIdle()
    const chunk = (...types: string[]) => types.map((t) => `S:chunk ${t}`)
    expect(h.trace).toEqual([
      'S:spliced next-turn @0 +[m1]',
      'L:inserted m1',
      'L:status running',
      'S:turn/start 1',
      'S:spliced next-turn @0 -1',
      'L:claimed m1 1',
      'W:system-prompt/assemble',
      'W:agent/pre-step 1.1 [m1]',
      'S:step/start 1.1',
      'S:user/message m1',
      'W:agent/request 1.1',
      'S:request/header initial',
      'S:request/context',
      'S:request/digest 1.1#1',
      'W:llm/stream',
      ...chunk('block-start', 'tool-call-delta', 'block-end', 'finish'),
      'S:assistant/message 1.1',
      'S:tool/call c1',
      'W:tools/pre-execute',
      'W:tools/execute',
      'W:tools/post-execute',
      'L:tools/result',
      'S:tool/result c1',
      'S:spliced next-step @0 +[ctx]',
      'L:inserted ctx',
      'S:step/end 1.1',
      'S:spliced next-step @0 -1',
      'L:claimed ctx 1',
      'W:system-prompt/assemble',
      'W:agent/pre-step 1.2 [ctx]',
      'S:step/start 1.2',
      'S:user/message ctx',
      'W:agent/request 1.2',
      'S:request/digest 1.2#1',
      'W:llm/stream',
      ...chunk('block-start', 'text-delta', 'block-end', 'usage', 'finish'),
      'S:assistant/message 1.2',
      'S:step/end 1.2',
      'R:agent/turn-stopping 1',
      'S:turn/end 1 completed',
      'L:status idle',
    ])
    // One AbortSignal per turn, passed to every station.
    expect(signals.size).toBe(1)
    expect([...signals][0]).toBe(h.requests[0]!.signal)
    // Payload shapes: `agent` is written last; pre-step messages are frozen.
    const pre = payloads.preStep![0]
    expect(Object.keys(pre)).toEqual(['messages', 'turn', 'step', 'signal', 'agent'])
    expect(pre.agent).toBe(agent)
    expect(Object.isFrozen(pre.messages)).toBe(true)
    expect(pre.messages.every((m: object) => Object.isFrozen(m))).toBe(true)
    expect(Object.keys(payloads.request![0])).toEqual(['turn', 'step', 'signal', 'agent'])
    expect(Object.keys(payloads.stopping![0])).toEqual(['turn', 'signal', 'agent'])
  })
})

describe('waking and turn edges', () => {
  it('a prompt removed before the claim still calls the model when a changed runtime snapshot is projected', async () => {
    const h = boot()
    h.ctx.systemPrompt.context({ name: 'env', order: 0, text: 'cwd: /w' })
    const agent = h.agent()
    const p = user('p')
    h.ctx.on('agent/inbox/inserted', ({ message }) => {
      if (message.id === p.id) agent.inbox.remove(p.id)
    })
    h.script.push(say('ok'))
    h.trace.length = 0
    agent.followup(p)
    await agent.whenIdle()
    expect(h.requests).toHaveLength(1)
    expect(texts(h.requests[0]!.messages)).toEqual([
      'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\ncwd: /w',
    ])
    expect(h.trace.slice(0, 8)).toEqual([
      'S:spliced next-turn @0 +[p]',
      'L:inserted p',
      'S:spliced next-turn @0 -1 canceled',
      'L:discarded p',
      'L:status running',
      'S:turn/start 1',
      'S:step/start 1.1',
      'S:user/message [snapshot] cwd: /w',
    ])
    expect(turnEnds(agent).map((d) => d.reason)).toEqual([{ kind: 'completed' }])
  })

  it('a pre-step throw is a turn error: the claim is consumed, no step opens', async () => {
    const h = boot()
    const agent = h.agent()
    h.ctx.on('agent/pre-step', () => {
      throw new Error('policy crashed')
    })
    h.trace.length = 0
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace).toEqual([...PROMPT, 'L:error 1.0', 'S:turn/end 1 error:UNKNOWN', 'L:status idle'])
    expect(turnEnds(agent)[0]!.reason).toEqual({ kind: 'error', error: { message: 'policy crashed', code: 'UNKNOWN' } })
    expect(agent.inbox.hasPending).toBe(false)
  })

  for (const kind of ['stop', 'max-tokens'] as const) {
    it(`C: an empty later proposal after a ${kind === 'stop' ? 'completed' : 'max-tokens'} step closes the turn with that ending`, async () => {
      const h = boot()
      const agent = h.agent()
      let stopping = 0
      h.ctx.on('agent/turn-stopping', () => {
        stopping++
      })
      h.ctx.on('agent/pre-step', (p, next) => (p.step === 2 ? { kind: 'enter' as const, messages: [] } : next()))
      h.script.push((r: GenerateOptions) => {
        agent.steer(user('s'))
        const chunks = say('first')(r) as StreamChunk[]
        return [...chunks.slice(0, -1), { type: 'finish', reason: { kind } } as StreamChunk]
      })
      agent.followup(user('p'))
      await agent.whenIdle()
      expect(h.requests).toHaveLength(1)
      expect(h.trace.filter((t) => t.startsWith('S:step/start'))).toEqual(['S:step/start 1.1'])
      expect(h.trace).toContain('L:claimed s 1')
      expect(turnEnds(agent).map((d) => d.reason)).toEqual([{ kind: kind === 'stop' ? 'completed' : 'max-tokens' }])
      expect(stopping).toBe(0)
      expect(agent.inbox.hasPending).toBe(false)
    })
  }

  it('a followup during turn-stopping does not extend the turn; a steer does', async () => {
    const h = boot()
    const agent = h.agent()
    let round = 0
    h.ctx.on('agent/turn-stopping', ({ turn }) => {
      round++
      if (round === 1) agent.followup(user('q'))
      if (round === 2 && turn === 2) agent.steer(user('s'))
    })
    h.script.push(say('one'), say('two'), say('three'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace.filter((t) => /^S:(turn|step)\/start|^L:status/.test(t))).toEqual([
      'L:status running',
      'S:turn/start 1',
      'S:step/start 1.1',
      'S:turn/start 2',
      'S:step/start 2.1',
      'S:step/start 2.2',
      'L:status idle',
    ])
    expect(texts(h.requests[1]!.messages).at(-1)).toBe('q')
    expect(texts(h.requests[2]!.messages).at(-1)).toBe('s')
  })

  it('the agent/error step is the last opened step of the turn', async () => {
    const h = boot()
    h.ctx.tools.register({ name: 't', description: 'd', parameters: { type: 'object' }, execute: () => 'ok' })
    const agent = h.agent()
    const errors: { turn: number; step: number }[] = []
    h.ctx.on('agent/error', ({ turn, step }) => {
      errors.push({ turn, step })
    })
    h.script.push(callTools({ id: 'c1', name: 't' }), fail('SERVER'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(errors).toEqual([{ turn: 1, step: 2 }])
  })
})

describe('where pending input goes', () => {
  it('a turn error parks pending prompts until the next waking send, which claims the oldest first', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(fail('SERVER'))
    agent.followup(user('p1'))
    agent.followup(user('p2'))
    await agent.whenIdle()
    expect(turnEnds(agent).map((d) => d.reason.kind)).toEqual(['error'])
    expect(texts(agent.inbox.nextTurn)).toEqual(['p2'])
    await tick()
    expect(agent.status).toBe('idle')
    h.script.push(say('two'), say('three'))
    agent.followup(user('p3'))
    await agent.whenIdle()
    expect(turnEnds(agent).map((d) => d.reason.kind)).toEqual(['error', 'completed', 'completed'])
    expect(texts(h.requests[1]!.messages).at(-1)).toBe('p2')
    expect(texts(h.requests[2]!.messages).at(-1)).toBe('p3')
  })

  it('cancel with keepInbox parks queued prompts; nothing runs until a waking send', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(hang)
    agent.followup(user('a'))
    agent.followup(user('queued'))
    await tick()
    agent.cancel(USER, { keepInbox: true })
    await agent.whenIdle()
    await tick()
    expect(turnEnds(agent).map((d) => d.reason.kind)).toEqual(['aborted'])
    expect(texts(agent.inbox.nextTurn)).toEqual(['queued'])
    expect(agent.status).toBe('idle')
  })

  it('sends made while disposal runs land but never latch a replay', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(hang)
    agent.followup(user('p'))
    await tick()
    agent.cancel(USER, { keepInbox: true })
    const disposing = agent.dispose()
    agent.steer(user('late'))
    await disposing
    expect(h.trace.filter((t) => t.startsWith('S:turn/start'))).toEqual(['S:turn/start 1'])
    expect(h.requests).toHaveLength(1)
  })

  it('the routing decision is made before insertion: a cancel inside the splice observer cannot reroute a steer', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(hang)
    agent.followup(user('p'))
    await tick()
    const s = user('s')
    h.ctx.on('session/event', (_session, event) => {
      const data = event.data as { inserted?: { id: string }[] }
      if (event.type === 'agent/inbox/spliced' && data.inserted?.[0]?.id === s.id)
        agent.cancel(USER, { keepInbox: true })
    })
    agent.steer(s)
    await agent.whenIdle()
    await tick()
    expect(texts(agent.inbox.nextStep)).toEqual(['s'])
    expect(agent.inbox.nextTurn).toEqual([])
    expect(turnEnds(agent).map((d) => d.reason.kind)).toEqual(['aborted'])
    expect(agent.status).toBe('idle')
  })
})

describe('middleware failures are thrown errors and skip request-error', () => {
  it('a throwing llm/stream listener', async () => {
    const h = boot()
    const agent = h.agent()
    let requestErrors = 0
    h.ctx.on('agent/request-error', () => {
      requestErrors++
      return undefined
    })
    h.ctx.on('llm/stream', () => {
      throw new Error('middleware down')
    })
    h.script.push(say('never'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(turnEnds(agent)[0]!.reason).toEqual({
      kind: 'error',
      error: { message: 'middleware down', code: 'UNKNOWN' },
    })
    expect(requestErrors).toBe(0)
    expect(h.trace.filter((t) => t.startsWith('S:chunk'))).toEqual([])
  })

  it('a vetoed chunk append', async () => {
    const h = boot()
    const agent = h.agent()
    let requestErrors = 0
    h.ctx.on('agent/request-error', () => {
      requestErrors++
      return undefined
    })
    h.ctx.on(
      'internal/event' as never,
      ((_t: string, name: string, args: any[]) => {
        if (name === 'session/event' && args[1]?.type === 'assistant/chunk') throw new Error('chunk vetoed')
      }) as never,
    )
    h.script.push(fail('SERVER'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const reason = turnEnds(agent)[0]!.reason
    expect(reason.kind).toBe('error')
    expect(reason.error.code).toBe('UNKNOWN')
    expect(reason.error.message).toContain('chunk vetoed')
    expect(requestErrors).toBe(0)
  })
})

describe('request building edges', () => {
  it('listeners see "" for a missing route in the seed', async () => {
    const h = boot()
    const agent = h.ctx.agentLoop.create()
    let seed: unknown
    h.ctx.on('agent/request', async (_p, next) => {
      seed = await next()
      return { ...(seed as object), provider: 'mock', model: 'm1' } as never
    })
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(seed).toEqual({ provider: '', model: '' })
    expect(turnEnds(agent)[0]!.reason).toEqual({ kind: 'completed' })
  })

  it('request/context without an advertised window is logged without the field; a new section logs a change header', async () => {
    const h = boot()
    h.ctx.llm.registerAdapter(['big'], {
      stream: say('hi') as never,
      resolveModel: (provider: string, model: string) => ({
        provider,
        id: model,
        name: model,
        context: { contextWindow: 1000 },
      }),
    })
    const agent = h.agent({ provider: 'big', model: 'x' })
    let route = { provider: 'big', model: 'x' }
    h.ctx.on('agent/request', async (_p, next) => ({ ...(await next()), ...route }))
    agent.followup(user('1'))
    await agent.whenIdle()
    route = { provider: 'mock', model: 'm1' }
    h.script.push(say('ok'))
    agent.followup(user('2'))
    await agent.whenIdle()
    const contexts = agent.session.events.filter((e) => e.type === 'request/context').map((e) => e.data)
    expect(contexts).toEqual([
      { provider: 'big', model: 'x', contextWindow: 1000 },
      { provider: 'mock', model: 'm1' },
    ])
    h.ctx.systemPrompt.section({ name: 'extra', order: 5, text: 'Be brief.' })
    h.script.push(say('ok'))
    agent.followup(user('3'))
    await agent.whenIdle()
    const reasons = agent.session.events.filter((e) => e.type === 'request/header').map((e) => (e.data as any).reason)
    expect(reasons).toEqual(['initial', 'change', 'change'])
    expect(h.requests.at(-1)!.system).toBe('You are an AI agent powered by Bridle.\n\nBe brief.')
  })
})

describe('dispatch through scope carriers', () => {
  it('waterfalls and serial dispatches reach agent.ctx listeners of that agent only; global listeners hear all', async () => {
    const h = boot()
    const heard: string[] = []
    const a = h.agent({
      sessionId: 'a',
      setup(agent) {
        agent.ctx.on('agent/pre-step', ({ agent: who }, next) => {
          heard.push(`pre-step ${who.id}`)
          return next()
        })
        agent.ctx.on('agent/turn-stopping', ({ agent: who }) => {
          heard.push(`turn-stopping ${who.id}`)
        })
        agent.ctx.on(
          'agent/request',
          ({ agent: who }, next) => {
            heard.push(`global request ${who.id}`)
            return next()
          },
          { global: true },
        )
      },
    })
    const b = h.agent({ sessionId: 'b' })
    h.script.push(say('a'), say('b'))
    a.followup(user('p'))
    await a.whenIdle()
    b.followup(user('p'))
    await b.whenIdle()
    expect(heard).toEqual(['pre-step a', 'global request a', 'turn-stopping a', 'global request b'])
  })

  it('inbox notifications carry exactly {message, agent} ({message, turn, agent} for claimed)', async () => {
    const h = boot()
    const agent = h.agent()
    const keys: string[] = []
    for (const name of ['agent/inbox/inserted', 'agent/inbox/discarded', 'agent/inbox/claimed'] as const) {
      h.ctx.on(name, (payload: object) => {
        keys.push(`${name}: ${Object.keys(payload).join(',')}`)
      })
    }
    h.ctx.on('agent/status', (payload) => {
      keys.push(`agent/status: ${Object.keys(payload).join(',')}`)
    })
    agent.inject(user('x'))
    agent.cancel(USER)
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(keys).toEqual([
      'agent/inbox/inserted: message,agent',
      'agent/inbox/discarded: message,agent',
      'agent/inbox/inserted: message,agent',
      'agent/status: status,agent',
      'agent/inbox/claimed: message,turn,agent',
      'agent/status: status,agent',
    ])
  })
})

describe('tool-call scheduler', () => {
  it('a later call is classified right before it starts (after waiting for the pool)', async () => {
    const h = boot({ loop: { maxParallelToolCalls: 2 } })
    const gates: Record<string, ReturnType<typeof deferred<void>>> = { a: deferred<void>(), b: deferred<void>() }
    const running = new Set<string>()
    const overlap: string[][] = []
    let cSafe = true
    h.ctx.tools.register({
      name: 'slow',
      description: 'd',
      parameters: { type: 'object', properties: { k: { type: 'string' } } },
      concurrencySafe: true,
      execute: async (args: { k: string }) => {
        running.add(args.k)
        await gates[args.k]!.promise
        running.delete(args.k)
        return args.k
      },
    })
    h.ctx.tools.register({
      name: 'flip',
      description: 'd',
      parameters: { type: 'object' },
      concurrencySafe: () => cSafe,
      execute: () => {
        overlap.push([...running])
        return 'c'
      },
    })
    // The first call's result observer makes `flip` exclusive before it has started.
    h.ctx.on('tools/result', (exec) => {
      if (exec.callId === 'a') cSafe = false
    })
    const agent = h.agent()
    h.script.push(
      callTools(
        { id: 'a', name: 'slow', args: '{"k":"a"}' },
        { id: 'b', name: 'slow', args: '{"k":"b"}' },
        { id: 'c', name: 'flip' },
      ),
      say('done'),
    )
    agent.followup(user('p'))
    await new Promise((r) => setTimeout(r, 5))
    gates.a!.resolve()
    await new Promise((r) => setTimeout(r, 5))
    gates.b!.resolve()
    await agent.whenIdle()
    expect(overlap).toEqual([[]])
    expect(h.trace.filter((t) => t.startsWith('S:tool/'))).toEqual([
      'S:tool/call a',
      'S:tool/call b',
      'S:tool/result a',
      'S:tool/result b',
      'S:tool/call c',
      'S:tool/result c',
    ])
  })

  it('an accept refused as a duplicate is an internal failure: the turn errors after started bodies settle', async () => {
    const h = boot()
    const dup = user('dup')
    h.ctx.tools.register({
      name: 'ctxy',
      description: 'd',
      parameters: { type: 'object' },
      concurrencySafe: true,
      execute: (_a: unknown, exec: any) => {
        exec.deferContext(dup)
        return 'ok'
      },
    })
    const agent = h.agent()
    h.script.push(callTools({ id: 'c1', name: 'ctxy' }, { id: 'c2', name: 'ctxy' }))
    agent.followup(user('p'))
    await agent.whenIdle()
    const reason = turnEnds(agent)[0]!.reason
    expect(reason).toEqual({
      kind: 'error',
      error: { message: `message "${dup.id}" is already pending`, code: 'UNKNOWN' },
    })
    expect(h.trace.filter((t) => t.startsWith('S:tool/result'))).toEqual(['S:tool/result c1', 'S:tool/result c2'])
  })
})

describe('more create and event rules', () => {
  it('a session-level error (relative cwd) publishes nothing', () => {
    const h = boot()
    expect(() => h.agent({ sessionId: 'rel', cwd: 'relative/dir' })).toThrow(
      'session header cwd must be an absolute path, got "relative/dir"',
    )
    expect(h.trace).toEqual([])
    expect(h.ctx.agentLoop.list()).toEqual([])
    expect(h.agent({ sessionId: 'rel' }).id).toBe('rel')
  })

  it('an async agent/created rejection is warned and does not veto', async () => {
    const { warned, restore } = captureWarnings()
    try {
      const h = boot()
      h.ctx.on('agent/created', async () => {
        throw new Error('late complaint')
      })
      const agent = h.agent({ sessionId: 'kept' })
      await tick()
      expect(h.ctx.agentLoop.get('kept')).toBe(agent)
      expect(warned).toContain('agent event "agent/created" listener rejected: late complaint')
    } finally {
      restore()
    }
  })

  it('the first cancel cause stays the exact signal reason', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(hang)
    agent.followup(user('p'))
    await tick()
    const first = { kind: 'hook' as const, reason: 'budget' }
    agent.cancel(first)
    agent.cancel(USER)
    await agent.whenIdle()
    expect(h.requests[0]!.signal!.reason).toBe(first)
  })
})

describe('S6/S7: what the pre-step decision enters', () => {
  it('a rewritten decision enters its own messages, in order; the claimed prompt is consumed', async () => {
    const h = boot()
    const agent = h.agent()
    const a = createUserMessage('rewritten a')
    const b = createUserMessage('rewritten b')
    h.ctx.on('agent/pre-step', () => ({ kind: 'enter' as const, messages: [a, b] }))
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const entered = agent.session.events.filter((e) => e.type === 'user/message')
    expect(entered.map((e) => (e.data as { id: string }).id)).toEqual([a.id, b.id])
    expect(entered.every((e) => e.surfaceOp === 'append')).toBe(true)
    expect(texts(h.requests[0]!.messages)).toEqual(['rewritten a', 'rewritten b'])
    expect(agent.inbox.hasPending).toBe(false)
  })
})

describe('runtime-context projection edges', () => {
  it('a malformed owned message (several blocks) is always superseded; with no context the cleared marker follows', async () => {
    const h = boot()
    const agent = h.agent()
    agent.session.append(
      'user/message',
      createUserMessage(
        [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        { kind: 'plugin', plugin: '@bridle/system-prompt' },
      ),
      { surfaceOp: 'append' },
    )
    h.script.push(say('one'), say('two'))
    agent.followup(user('q1'))
    await agent.whenIdle()
    agent.followup(user('q2'))
    await agent.whenIdle()
    const owned = agent.session.events
      .filter((e) => e.type === 'user/message' && (e.data as any).source.kind === 'plugin')
      .map((e) => texts([e.data as never])[0])
    expect(owned).toEqual(['a', RUNTIME_CONTEXT_CLEARED])
  })

  it('a replacement of unrelated messages does not re-emit the retained snapshot', async () => {
    const h = boot()
    h.ctx.systemPrompt.context({ name: 'env', order: 0, text: 'cwd: /w' })
    const agent = h.agent()
    h.script.push(say('one'), say('two'))
    agent.followup(user('q1'))
    await agent.whenIdle()
    // Replace only the assistant answer (not the snapshot).
    const answer = agent.session.events.find((e) => e.type === 'assistant/message')!
    agent.session.append('user/message', user('summary of answer'), {
      surfaceOp: { op: 'replace', start: answer.seq, end: answer.seq },
      sourceEventSeqs: [answer.seq],
    })
    agent.followup(user('q2'))
    await agent.whenIdle()
    const snapshots = agent.session.events.filter(
      (e) => e.type === 'user/message' && (e.data as any).source.kind === 'plugin',
    )
    expect(snapshots).toHaveLength(1)
    expect(texts(h.requests[1]!.messages).at(-1)).toBe('q2')
  })
})

describe('seed of a new instance', () => {
  it('temperature, stop and a persisted maxTokens are not restored', async () => {
    const h = boot()
    const first = h.agent({ maxTokens: 50 })
    h.ctx.on('agent/request', async (p, next) => {
      const seed = await next()
      return p.agent === first ? { ...seed, temperature: 0.3, stop: ['END'] } : seed
    })
    h.script.push(say('one'))
    first.followup(user('1'))
    await first.whenIdle()
    expect(h.requests[0]).toMatchObject({ temperature: 0.3, stop: ['END'], maxTokens: 50 })
    const seeds: unknown[] = []
    const second = h.agent({ seed: first.session.events })
    second.ctx.on('agent/request', async (_p, next) => {
      const seed = await next()
      seeds.push(seed)
      return seed
    })
    h.script.push(say('two'))
    second.followup(user('2'))
    await second.whenIdle()
    expect(seeds).toEqual([{ provider: 'mock', model: 'm1' }])
    const last = h.requests.at(-1)!
    expect(last.temperature).toBeUndefined()
    expect(last.stop).toBeUndefined()
    expect(last.maxTokens).toBeUndefined()
  })
})

describe('verifyRequest checks, in order', () => {
  it('names each failed check with a HarnessError INVARIANT', async () => {
    const h = boot()
    const agent = h.agent()
    let captured: { turn: number; step: number } | undefined
    h.ctx.on('llm/stream', (options, next) => {
      captured = { turn: 1, step: 1 }
      const session = agent.session
      const expectInvariant = (request: GenerateOptions, message: string) => {
        let thrown: unknown
        try {
          verifyRequest(session, request, 1, 1, 1)
        } catch (error) {
          thrown = error
        }
        expect(thrown).toBeInstanceOf(HarnessError)
        expect((thrown as HarnessError).code).toBe('INVARIANT')
        expect((thrown as Error).message).toBe(message)
      }
      // The real request passes.
      expect(() => verifyRequest(session, options, 1, 1, 1)).not.toThrow()
      expectInvariant({ ...options }, 'a loop-built request must be frozen')
      expectInvariant(
        Object.freeze({ ...options, sessionId: 'other' }) as GenerateOptions,
        'a loop-built request must carry a live session id, got "other"',
      )
      expectInvariant(
        Object.freeze({ ...options, messages: [...options.messages] }),
        'a loop-built request must carry a frozen messages array',
      )
      expectInvariant(
        Object.freeze({ ...options, messages: Object.freeze([...options.messages, user('extra')]) }),
        `llm request for session "${agent.id}" diverges from the dispatch-time durable derivation (log-reconstruction desync)`,
      )
      for (const patch of [
        { model: 'm9' },
        { provider: 'other' },
        { reasoningEffort: 'high' },
        { temperature: 1 },
        { maxTokens: 9 },
        { stop: ['x'] },
        { system: 'changed' },
        { tools: [{ name: 'x', description: 'd', parameters: {} }] },
      ]) {
        expectInvariant(
          Object.freeze({ ...options, ...patch }) as GenerateOptions,
          `llm request for session "${agent.id}" diverges from the folded request header`,
        )
      }
      return next()
    })
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(captured).toBeDefined()
    expect(turnEnds(agent)[0]!.reason).toEqual({ kind: 'completed' })
  })
})

describe("an abort during a call's own pre-execute", () => {
  it("that call gets the registry's ABORTED_BEFORE_DISPATCH result through post-execute; later calls are synthetic, hook-free", async () => {
    const h = boot()
    let ran = 0
    h.ctx.tools.register({
      name: 't',
      description: 'd',
      parameters: { type: 'object' },
      concurrencySafe: true,
      execute: () => String(++ran),
    })
    const agent = h.agent()
    const hooks: string[] = []
    h.ctx.on('tools/pre-execute', (exec, next) => {
      hooks.push(`pre ${exec.callId}`)
      if (exec.callId === 'c1') agent.cancel(USER)
      return next()
    })
    h.ctx.on('tools/post-execute', (exec, _result, next) => {
      hooks.push(`post ${exec.callId}`)
      return next()
    })
    h.ctx.on('tools/result', (exec) => {
      hooks.push(`result ${exec.callId}`)
    })
    h.script.push(callTools({ id: 'c1', name: 't' }, { id: 'c2', name: 't' }))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(ran).toBe(0)
    expect(hooks).toEqual(['pre c1', 'post c1', 'result c1'])
    expect(h.trace.filter((t) => t.startsWith('S:tool/') || t.startsWith('S:turn/end'))).toEqual([
      'S:tool/call c1',
      'S:tool/result c1 ABORTED_BEFORE_DISPATCH',
      'S:tool/call c2',
      'S:tool/result c2 ABORTED_BEFORE_DISPATCH',
      'S:turn/end 1 aborted:user',
    ])
  })
})

describe('more routing and driver rules', () => {
  it('agent.inbox is the @bridle/inbox Inbox', () => {
    const h = boot()
    expect(h.agent().inbox).toBeInstanceOf(Inbox)
  })

  it('a send whose durable append throws changes neither the inbox nor the status', () => {
    const h = boot()
    const agent = h.agent()
    const bad = { ...user('x'), content: [{ type: 'text', text: 'x', n: 1n }] } as never
    expect(() => agent.followup(bad)).toThrow('session event "agent/inbox/spliced" carries non-JSON-serializable data')
    expect(agent.status).toBe('idle')
    expect(agent.inbox.hasPending).toBe(false)
    expect(h.trace).toEqual(['L:created', 'L:session-start startup'])
  })

  it("an injection during a tool body queues before that call's contexts and enters the next step after all results", async () => {
    const h = boot()
    let agentRef: Agent | undefined
    h.ctx.tools.register({
      name: 'work',
      description: 'd',
      parameters: { type: 'object' },
      concurrencySafe: true,
      execute: (_a: unknown, exec: any) => {
        agentRef!.inject(user(`mid-${exec.callId}`))
        exec.deferContext(user(`ctx-${exec.callId}`))
        return 'ok'
      },
    })
    const agent = h.agent()
    agentRef = agent
    h.script.push(callTools({ id: 'c1', name: 'work' }, { id: 'c2', name: 'work' }), say('done'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const second = h.requests[1]!.messages
    expect(second.map((m) => m.content[0]!.type)).toEqual([
      'text',
      'tool-call',
      'tool-result',
      'tool-result',
      'text',
      'text',
      'text',
      'text',
    ])
    expect(texts(second.slice(4))).toEqual(['mid-c1', 'mid-c2', 'ctx-c1', 'ctx-c2'])
    expect(turnEnds(agent).map((d) => d.reason.kind)).toEqual(['completed'])
  })

  it('a latched wake whose message was removed before the driver settled is dropped silently', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(hang)
    agent.followup(user('a'))
    await tick()
    agent.cancel(USER, { keepInbox: true })
    const b = user('b')
    agent.steer(b)
    expect(agent.inbox.remove(b.id)).toBe(true)
    await agent.whenIdle()
    await tick()
    expect(h.trace.filter((t) => t.startsWith('L:status'))).toEqual(['L:status running', 'L:status idle'])
    expect(turnEnds(agent)).toHaveLength(1)
  })

  it('agent/turn-stopping is a cordis serial dispatch: a non-nullish result stops later listeners', async () => {
    const h = boot()
    const agent = h.agent()
    const calls: string[] = []
    h.ctx.on('agent/turn-stopping', () => {
      calls.push('first')
      return 'handled'
    })
    h.ctx.on('agent/turn-stopping', () => {
      calls.push('second')
    })
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(calls).toEqual(['first'])
    expect(turnEnds(agent)[0]!.reason).toEqual({ kind: 'completed' })
  })
})

describe('durable payload shapes', () => {
  it('request/digest carries exactly {turn, step, attempt, algorithm, request, config, system, tools, messages:{count, chain}}', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const digest = agent.session.events.find((e) => e.type === 'request/digest')!
    const data = digest.data as Record<string, any>
    expect(Object.keys(data)).toEqual([
      'turn',
      'step',
      'attempt',
      'algorithm',
      'request',
      'config',
      'system',
      'tools',
      'messages',
    ])
    expect(Object.keys(data.messages)).toEqual(['count', 'chain'])
    expect(data.messages.count).toBe(1)
    for (const part of ['request', 'config', 'system', 'tools', 'messages'] as const) {
      const value = part === 'messages' ? data.messages.chain : data[part]
      expect(value).toMatch(/^[0-9a-f]{64}$/)
    }
    expect(digest.surfaceOp).toBeUndefined()
  })

  it('tool/result writes meta only when defined and error only for coded errors', async () => {
    const h = boot()
    h.ctx.tools.register({
      name: 'm',
      description: 'd',
      parameters: { type: 'object' },
      concurrencySafe: true,
      execute: () => ({ content: [{ type: 'text' as const, text: 'with meta' }], meta: { rows: 3 } }),
    })
    h.ctx.tools.register({
      name: 'plain',
      description: 'd',
      parameters: { type: 'object' },
      concurrencySafe: true,
      execute: () => 'plain',
    })
    h.ctx.tools.register({
      name: 'fails',
      description: 'd',
      parameters: { type: 'object' },
      concurrencySafe: true,
      execute: () => {
        throw new Error('uncoded')
      },
    })
    const agent = h.agent()
    h.script.push(
      callTools({ id: 'c1', name: 'm' }, { id: 'c2', name: 'plain' }, { id: 'c3', name: 'fails' }),
      say('done'),
    )
    agent.followup(user('p'))
    await agent.whenIdle()
    const results = agent.session.events.filter((e) => e.type === 'tool/result')
    expect(results.map((e) => Object.keys(e.data as object))).toEqual([
      ['turn', 'step', 'message', 'meta'],
      ['turn', 'step', 'message'],
      ['turn', 'step', 'message'],
    ])
    expect((results[0]!.data as any).meta).toEqual({ rows: 3 })
    const message = (results[0]!.data as any).message
    expect(message.role).toBe('user')
    expect(message.source).toEqual({ kind: 'tool', callId: 'c1' })
    expect(message.content).toHaveLength(1)
    expect(message.content[0]).toMatchObject({ type: 'tool-result', toolCallId: 'c1' })
    expect((results[2]!.data as any).message.content[0].isError).toBe(true)
  })
})

describe('listener and claim failures are turn errors', () => {
  it('a failing prompt claim record: the next-step claim stays committed, no claimed notification, the turn errors', async () => {
    const h = boot()
    const agent = h.agent()
    agent.inject(user('ctx'))
    h.ctx.on(
      'internal/event' as never,
      ((_t: string, name: string, args: any[]) => {
        const e = args[1]
        if (
          name === 'session/event' &&
          e?.type === 'agent/inbox/spliced' &&
          e.data.target === 'next-turn' &&
          e.data.removedCount &&
          !e.data.outcome
        ) {
          throw new Error('claim vetoed')
        }
      }) as never,
    )
    h.trace.length = 0
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace).toEqual([
      'S:spliced next-turn @0 +[p]',
      'L:inserted p',
      'L:status running',
      'S:turn/start 1',
      'S:spliced next-step @0 -1',
      'L:error 1.0',
      'S:turn/end 1 error:UNKNOWN',
      'L:status idle',
    ])
    expect(turnEnds(agent)[0]!.reason.error.message).toBe('claim vetoed')
    expect(texts(agent.inbox.nextTurn)).toEqual(['p'])
    expect(agent.inbox.nextStep).toEqual([])
  })

  it('a throwing agent/turn-stopping listener is a turn error', async () => {
    const h = boot()
    const agent = h.agent()
    h.ctx.on('agent/turn-stopping', () => {
      throw new Error('stopping failed')
    })
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(turnEnds(agent)[0]!.reason).toEqual({
      kind: 'error',
      error: { message: 'stopping failed', code: 'UNKNOWN' },
    })
    expect(h.trace.slice(-4)).toEqual(['S:step/end 1.1', 'L:error 1.1', 'S:turn/end 1 error:UNKNOWN', 'L:status idle'])
  })

  it('a throwing agent/request-error listener is a turn error', async () => {
    const h = boot()
    const agent = h.agent()
    h.ctx.on('agent/request-error', () => {
      throw new Error('retry policy crashed')
    })
    h.script.push(fail('SERVER'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(turnEnds(agent)[0]!.reason).toEqual({
      kind: 'error',
      error: { message: 'retry policy crashed', code: 'UNKNOWN' },
    })
  })
})

describe('construction over a corrupt log', () => {
  it('an invalid persisted splice refuses the agent, announces nothing and frees the id', () => {
    const h = boot()
    const m = user('m')
    const seed = [
      { type: 'agent/inbox/spliced', seq: 0, time: 0, data: { target: 'next-turn', start: 0, inserted: [m] } },
      { type: 'agent/inbox/spliced', seq: 1, time: 0, data: { target: 'next-step', start: 0, inserted: [m] } },
    ] as never
    let thrown: unknown
    try {
      h.agent({ sessionId: 'corrupt', seed })
    } catch (error) {
      thrown = error
    }
    expect((thrown as Error).message).toBe('invalid persisted inbox splice at session seq 1')
    expect(((thrown as Error).cause as Error).message).toBe(`message "${m.id}" is already pending`)
    expect(h.trace).toEqual([])
    expect(h.ctx.agentLoop.list()).toEqual([])
    expect(h.ctx.sessions.get('corrupt')).toBeUndefined()
    expect(h.agent({ sessionId: 'corrupt' }).id).toBe('corrupt')
  })
})
