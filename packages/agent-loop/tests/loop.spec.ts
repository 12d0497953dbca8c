import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { type Context, Logger } from 'cordis'
import { AgentLoop, Config, DEFAULT_MAX_PARALLEL_TOOL_CALLS, type Agent } from '@bridle/agent-loop'
import { scopeOf } from '@bridle/scope'
import { boot, say, user } from './harness.js'
import { takeLogLines } from '../../../tests/support/logs.js'

describe('AgentLoop service', () => {
  it('config: defaults, verifyRequests under vitest, and errors naming the field', () => {
    expect(Config(undefined)).toEqual({
      maxParallelToolCalls: DEFAULT_MAX_PARALLEL_TOOL_CALLS,
      verifyRequests: true,
      agents: [],
    })
    expect(Config({ maxParallelToolCalls: null, verifyRequests: false })).toMatchObject({
      maxParallelToolCalls: 10,
      verifyRequests: false,
    })
    for (const bad of [0, 1.5, -3, '2']) {
      expect(() => Config({ maxParallelToolCalls: bad as never })).toThrow(
        /maxParallelToolCalls must be a positive integer/,
      )
    }
    expect(() => Config({ maxParalelToolCalls: 2 } as never)).toThrow(/agent-loop: invalid config/)
    expect(() => Config({ agents: [{ id: 'a', sessionId: 's', resumeSessionId: 's' }] })).toThrow(
      'agent "a": sessionId and resumeSessionId are mutually exclusive',
    )
    expect(() =>
      Config({
        agents: [
          { id: 'a', sessionId: 's' },
          { id: 'b', resumeSessionId: 's' },
        ],
      }),
    ).toThrow('agents "a" and "b" use duplicate exact session identity "s"')
    const h = boot()
    expect(() => new AgentLoop(h.ctx, { maxParallelToolCalls: 0 })).toThrow(
      /maxParallelToolCalls must be a positive integer/,
    )
  })

  it('create publishes in order; get/list/dispose; agent.id === session.id', async () => {
    const h = boot()
    const a = h.agent({ sessionId: 'one' })
    const b = h.agent()
    expect(h.trace).toEqual(['L:created', 'L:session-start startup', 'L:created', 'L:session-start startup'])
    expect(a.id).toBe('one')
    expect(a.session.id).toBe(a.id)
    expect(h.ctx.sessions.get('one')).toBe(a.session)
    expect(h.ctx.agentLoop.get('one')).toBe(a)
    expect(h.ctx.agentLoop.list()).toEqual([a, b])
    expect(() => h.agent({ sessionId: 'one' })).toThrow('session "one" already exists')
    expect(await h.ctx.agentLoop.dispose('one')).toBe(true)
    expect(await h.ctx.agentLoop.dispose('one')).toBe(false)
    expect(h.ctx.agentLoop.list()).toEqual([b])
    expect(h.ctx.sessions.get('one')).toBeUndefined()
    expect(h.trace.slice(-1)).toEqual(['L:disposed'])
    // The id is free again.
    expect(h.agent({ sessionId: 'one' }).id).toBe('one')
  })

  it('a synchronous agent/created throw vetoes creation and frees the id', () => {
    const h = boot()
    const off = h.ctx.on('agent/created', () => {
      throw new Error('no agents today')
    })
    const disposed: string[] = []
    h.ctx.on('session/disposed', (s) => {
      disposed.push(s.id)
    })
    expect(() => h.agent({ sessionId: 'x' })).toThrow('no agents today')
    expect(h.ctx.agentLoop.get('x')).toBeUndefined()
    expect(h.ctx.sessions.get('x')).toBeUndefined()
    expect(disposed).toEqual(['x'])
    expect(h.trace).toEqual(['L:created', 'L:disposed'])
    off()
    expect(h.agent({ sessionId: 'x' }).id).toBe('x')
  })

  it('a listener disposing the agent during setup aborts creation', () => {
    const h = boot()
    h.ctx.on('agent/created', ({ agent }) => {
      void agent.dispose()
    })
    expect(() => h.agent({ sessionId: 'y' })).toThrow('agent "y" setup aborted: owner disposed during setup')
    expect(h.ctx.agentLoop.get('y')).toBeUndefined()
  })

  it('agent.ctx is agent-local: its sections, tools and listeners reach that agent only and vanish with it', async () => {
    const h = boot()
    const seen: string[] = []
    const a = h.agent({
      sessionId: 'a',
      setup(agent) {
        agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: 'I am A.' })
        agent.ctx.tools.register({
          name: 'only_a',
          description: 'd',
          parameters: { type: 'object' },
          execute: () => 'a',
        })
        agent.ctx.on('agent/status', ({ agent: who, status }) => {
          seen.push(`${who.id}:${status}`)
        })
      },
    })
    const b = h.agent({ sessionId: 'b' })
    expect(scopeOf(a.ctx)).toBe(a)
    expect(a.ctx.agent).toBe(a)
    expect(h.ctx.agent).toBeUndefined()
    h.script.push(say('a1'), say('b1'))
    a.followup(user('hi'))
    await a.whenIdle()
    b.followup(user('hi'))
    await b.whenIdle()
    expect(h.requests[0]!.system).toBe('You are an AI agent powered by Bridle.\n\nI am A.')
    expect(h.requests[0]!.tools?.map((t) => t.name)).toEqual(['only_a'])
    expect(h.requests[1]!.system).toBe('You are an AI agent powered by Bridle.')
    expect(h.requests[1]!.tools).toBeUndefined()
    expect(seen).toEqual(['a:running', 'a:idle'])
    await a.dispose()
    expect(h.ctx.tools.get('only_a', a)).toBeUndefined()
    expect(() =>
      a.ctx.tools.register({ name: 'late', description: 'd', parameters: { type: 'object' }, execute: () => '' }),
    ).toThrow()
    expect(() => a.followup(user('x'))).toThrow(`agent "a" is disposed`)
  })

  it('agent/* events carry the agent (last, unspoofable) and reach agent.ctx listeners of that agent only', async () => {
    const h = boot()
    const heard: string[] = []
    const a = h.agent({
      sessionId: 'a',
      setup(agent) {
        agent.ctx.on('agent/inbox/inserted', (p) => {
          heard.push(`${p.agent.id}:${(p.message.content[0] as any).text}`)
        })
      },
    })
    const b = h.agent({ sessionId: 'b' })
    const untagged: string[] = []
    h.ctx.on('agent/inbox/inserted', ({ agent }) => {
      untagged.push(agent.id)
    })
    a.inject(user('for a'))
    b.inject(user('for b'))
    expect(heard).toEqual(['a:for a'])
    expect(untagged).toEqual(['a', 'b'])
  })

  it('the calling plugin owns the agent: unloading it disposes the agent', async () => {
    const h = boot()
    let created: Agent | undefined
    const fork = h.ctx.plugin({
      inject: ['agentLoop'],
      apply(ctx: Context) {
        created = ctx.agentLoop.create({ provider: 'mock', model: 'm1', sessionId: 'owned' })
      },
    })
    await new Promise((r) => setTimeout(r, 0))
    expect(created?.id).toBe('owned')
    fork.dispose()
    await created!.dispose()
    expect(h.ctx.agentLoop.get('owned')).toBeUndefined()
    expect(h.ctx.sessions.get('owned')).toBeUndefined()
  })

  it('emit-listener failures are logged with the event name and the remaining listeners still run', async () => {
    const h = boot()
    const warned: string[] = []
    const target = {
      colors: 0,
      record(r: { type: string; content: string }) {
        if (r.type === 'warn') warned.push(r.content)
      },
    }
    Logger.targets.push(target)
    try {
      const order: string[] = []
      h.ctx.on('agent/status', () => {
        throw new Error('sync bug')
      })
      h.ctx.on('agent/status', async () => {
        throw new Error('async bug')
      })
      h.ctx.on('agent/status', ({ status }) => {
        order.push(status)
      })
      const agent = h.agent()
      h.script.push(say('ok'))
      agent.followup(user('p'))
      await agent.whenIdle()
      await new Promise((r) => setTimeout(r, 0))
      expect(order).toEqual(['running', 'idle'])
      expect(warned).toContain('agent event "agent/status" listener threw: sync bug')
      expect(warned).toContain('agent event "agent/status" listener rejected: async bug')
    } finally {
      Logger.targets.splice(Logger.targets.indexOf(target), 1)
    }
  })

  it('an agent error event names the turn and step; listener failures are contained', async () => {
    const h = boot({ systemPrompt: { persona: '{{nope}}' } })
    h.ctx.on('agent/error', () => {
      throw new Error('listener bug')
    })
    h.ctx.on('agent/status', async () => {
      throw new Error('async listener bug')
    })
    const agent = h.agent()
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.trace).toContain('L:error 1.1')
    expect(agent.status).toBe('idle')
    await new Promise((r) => setTimeout(r, 0))
    expect(takeLogLines().sort()).toEqual([
      'warn agent-loop: agent event "agent/error" listener threw: listener bug',
      'warn agent-loop: agent event "agent/status" listener rejected: async listener bug',
      'warn agent-loop: agent event "agent/status" listener rejected: async listener bug',
    ])
  })

  it('resume without a persistence backend is refused with the documented message', async () => {
    const h = boot()
    await expect(h.ctx.agentLoop.resume('x')).rejects.toThrow(
      'cannot resume: session persistence is not configured (load a session persistence backend such as @bridle/session-jsonl)',
    )
  })

  it('dispose() still leaves the registry and detaches the session when disposing the agent scope throws', async () => {
    const h = boot()
    const agent = h.agent({ sessionId: 'brittle' })
    let armed = true
    h.ctx.on('internal/fork', () => {
      if (armed) throw new Error('fork observer failed')
    })
    await expect(agent.dispose()).rejects.toThrow('fork observer failed')
    armed = false
    expect(h.ctx.agentLoop.get('brittle')).toBeUndefined()
    expect(h.ctx.sessions.get('brittle')).toBeUndefined()
    expect(h.trace).toContain('L:disposed')
  })

  it('resume from an owner that is already disposed rejects and leaves no abort listener behind', async () => {
    const h = boot()
    let prepared = 0
    h.ctx.set('sessionPersistence', { prepare: () => (prepared++, new Promise(() => {})) })
    let captured: Context | undefined
    const fork = h.ctx.plugin({
      inject: ['agentLoop'],
      apply(ctx: Context) {
        captured = ctx
      },
    })
    fork.dispose()
    const controller = new AbortController()
    await expect(captured!.agentLoop.resume('gone', { signal: controller.signal })).rejects.toThrow()
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
    expect(prepared).toBe(0)
  })

  it('resume races the preparation against the caller signal and loop unload; a late preparation is released', async () => {
    const h = boot()
    const pending: { resolve: (p: unknown) => void; released: number }[] = []
    const fake = {
      prepare(_id: string) {
        return new Promise((resolve) => {
          pending.push({ resolve, released: 0 })
        })
      },
    }
    h.ctx.set('sessionPersistence', fake)
    const controller = new AbortController()
    const first = h.ctx.agentLoop.resume('r1', { signal: controller.signal })
    const reason = new Error('user gave up')
    controller.abort(reason)
    await expect(first).rejects.toBe(reason)
    let released = 0
    pending[0]!.resolve({ session: {}, [Symbol.dispose]: () => released++ })
    await new Promise((r) => setTimeout(r, 0))
    expect(released).toBe(1)
    expect(h.ctx.agentLoop.list()).toEqual([])

    const nonError = new AbortController()
    const second = h.ctx.agentLoop.resume('r2', { signal: nonError.signal })
    nonError.abort('plain reason')
    await expect(second).rejects.toThrow('agent "r2" creation aborted')

    let owned: Promise<unknown> | undefined
    const fork = h.ctx.plugin({
      inject: ['agentLoop'],
      apply(ctx: Context) {
        owned = ctx.agentLoop.resume('r-owned')
        owned.catch(() => {})
      },
    })
    await new Promise((r) => setTimeout(r, 0))
    fork.dispose()
    await expect(owned).rejects.toThrow('agent "r-owned" setup aborted: owner disposed during setup')

    const third = h.ctx.agentLoop.resume('r3')
    h.ctx.registry.delete(AgentLoop)
    await expect(third).rejects.toThrow('agent loop is not active')
  })
})
