import { describe, expect, it } from 'vitest'
import { AgentLoop } from '@bridle/agent-loop'
import type { GenerateOptions, StreamChunk } from '@bridle/llm'
import { boot, say, user } from './harness.js'
import { takeLogLines } from '../../../tests/support/logs.js'

const settle = () => new Promise((r) => setTimeout(r, 5))

/** A persistence that stores nothing: every resume fails with `session "<id>" not found`. */
const storingNothing = {
  prepare: async (id: string) => {
    throw new Error(`session "${id}" not found`)
  },
  list: async () => [],
}

describe('configured agents', () => {
  it('starts owned agents: a label gets <id>-session-<uuid>, an exact id is created without persistence', async () => {
    const h = boot({
      loop: {
        agents: [
          { id: 'bot', provider: 'mock', model: 'm1' },
          { id: 'fixed', sessionId: 'fixed-1', cwd: '/srv' },
        ],
      },
    })
    await settle()
    const ids = h.ctx.agentLoop.list().map((a) => a.id)
    expect(ids).toHaveLength(2)
    expect(ids[0]).toMatch(/^bot-session-[0-9a-f-]{36}$/)
    expect(ids[1]).toBe('fixed-1')
    expect(h.ctx.agentLoop.get('fixed-1')!.session.header.cwd).toBe('/srv')
    expect(h.ctx.agentLoop.get(ids[0]!)!.options).toEqual({ provider: 'mock', model: 'm1' })
  })

  it('a failed config-driven resume warns and emits agent-loop/config-start-failed', async () => {
    const h = boot({ loop: { agents: [{ id: 'r', resumeSessionId: 'ghost' }] } })
    h.ctx.set('sessionPersistence', storingNothing)
    const failures: { sessionId: string; error: unknown }[] = []
    h.ctx.on('agent-loop/config-start-failed', (p) => {
      failures.push(p)
    })
    await settle()
    expect(failures).toHaveLength(1)
    expect(failures[0]!.sessionId).toBe('ghost')
    expect((failures[0]!.error as Error).message).toBe('session "ghost" not found')
    expect(h.ctx.agentLoop.list()).toEqual([])
    expect(takeLogLines()).toEqual([
      'warn agent-loop: agent "r": config-driven resume of "ghost" failed: session "ghost" not found',
    ])
  })
})

describe('agent-loop/config-start-failed is a contained emit', () => {
  it('a throwing or rejecting listener is logged and the listeners after it still run', async () => {
    const h = boot({ loop: { agents: [{ id: 'r', resumeSessionId: 'ghost' }] } })
    h.ctx.set('sessionPersistence', storingNothing)
    const heard: string[] = []
    h.ctx.on('agent-loop/config-start-failed', () => {
      heard.push('first')
      throw new Error('listener broke')
    })
    h.ctx.on('agent-loop/config-start-failed', async () => {
      heard.push('second')
      throw new Error('listener rejected too')
    })
    h.ctx.on('agent-loop/config-start-failed', ({ sessionId }) => void heard.push(`third ${sessionId}`))
    await settle()
    expect(heard).toEqual(['first', 'second', 'third ghost'])
    expect(takeLogLines()).toEqual([
      'warn agent-loop: agent "r": config-driven resume of "ghost" failed: session "ghost" not found',
      'warn agent-loop: event "agent-loop/config-start-failed" listener threw: listener broke',
      'warn agent-loop: event "agent-loop/config-start-failed" listener rejected: listener rejected too',
    ])
  })
})

describe('configured agents waiting for persistence', () => {
  it('a resumeSessionId entry that waited for persistence does not keep its waiting plugin mounted', async () => {
    const h = boot({ loop: { agents: [{ id: 'r', resumeSessionId: 'later' }] } })
    await settle()
    const waiting = [...h.ctx.registry.keys()].length
    const failures: unknown[] = []
    h.ctx.on('agent-loop/config-start-failed', (p) => void failures.push(p))
    h.ctx.set('sessionPersistence', storingNothing)
    await settle()
    expect(failures).toHaveLength(1)
    expect([...h.ctx.registry.keys()].length).toBe(waiting - 1)
    expect(takeLogLines()).toEqual([
      'warn agent-loop: agent "r": config-driven resume of "later" failed: session "later" not found',
    ])
  })
})

describe('driver edges', () => {
  it('a vetoed turn/start emits agent/error with the previous turn number and leaves no turn', async () => {
    const h = boot()
    const agent = h.agent()
    let veto = true
    h.ctx.on(
      'internal/event' as never,
      ((_t: string, name: string, args: any[]) => {
        if (veto && name === 'session/event' && args[1]?.type === 'turn/start') throw new Error('disk full')
      }) as never,
    )
    const errors: { turn: number; step: number }[] = []
    h.ctx.on('agent/error', ({ turn, step }) => {
      errors.push({ turn, step })
    })
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(errors).toEqual([{ turn: 0, step: 0 }])
    expect(agent.session.events.some((e) => e.type.startsWith('turn/'))).toBe(false)
    // Nothing was claimed: the prompt is still pending and runs first, as turn 1.
    expect(agent.inbox.nextTurn).toHaveLength(1)
    veto = false
    h.script.push(say('ok'), say('ok'))
    agent.followup(user('q'))
    await agent.whenIdle()
    expect(agent.session.events.filter((e) => e.type === 'turn/start').map((e) => (e.data as any).turn)).toEqual([1, 2])
    expect(h.requests[0]!.messages.map((m) => (m.content[0] as any).text)).toEqual(['p'])
  })

  it('max-tokens is sticky for the rest of the turn', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push((r: GenerateOptions) => {
      agent.steer(user('continue'))
      const chunks = say('cut')(r) as StreamChunk[]
      return [...chunks.slice(0, -1), { type: 'finish', reason: { kind: 'max-tokens' } }]
    }, say('done'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.requests).toHaveLength(2)
    expect(agent.session.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'max-tokens' } })
  })

  it('a pre-step listener that does not call next drops the snapshot candidate; it is proposed again', async () => {
    const h = boot()
    const agent = h.agent()
    h.ctx.systemPrompt.context({ name: 'env', order: 0, text: 'cwd: /w' })
    let own = true
    h.ctx.on('agent/pre-step', (p, next) => (own ? { kind: 'enter' as const, messages: [...p.messages] } : next()))
    h.script.push(say('one'), say('two'))
    agent.followup(user('a'))
    await agent.whenIdle()
    own = false
    agent.followup(user('b'))
    await agent.whenIdle()
    const texts = agent.session.events
      .filter((e) => e.type === 'user/message')
      .map((e) => (e.data as any).content[0].text)
    expect(texts).toEqual([
      'a',
      'b',
      'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\ncwd: /w',
    ])
  })

  it('pre-step decisions of the wrong shape fail the turn', async () => {
    const h = boot()
    const agent = h.agent()
    h.ctx.on('agent/pre-step', () => ({ kind: 'enter', messages: [{ role: 'user' }] }) as never)
    agent.followup(user('p'))
    await agent.whenIdle()
    expect((agent.session.events.at(-1)!.data as any).reason.error.message).toBe(
      'agent/pre-step entered an invalid message at index 0 (expected an identified user-role message)',
    )
  })

  it('unloading the loop disposes every live agent; the service then refuses new agents', async () => {
    const h = boot()
    const loop = h.ctx.agentLoop
    const a = h.agent({ sessionId: 'a' })
    h.script.push((r: GenerateOptions) =>
      (async function* (): AsyncGenerator<StreamChunk> {
        await new Promise((_, reject) => r.signal!.addEventListener('abort', () => reject(r.signal!.reason)))
      })(),
    )
    a.followup(user('p'))
    await settle()
    h.ctx.registry.delete(AgentLoop)
    await a.whenIdle()
    await settle()
    expect(a.session.events.filter((e) => e.type === 'turn/end').map((e) => e.data)).toEqual([
      { turn: 1, reason: { kind: 'aborted', reason: { kind: 'disposed' } } },
    ])
    expect(loop.list()).toEqual([])
    expect(() => loop.create({ provider: 'mock', model: 'm1' })).toThrow('agent loop is not active')
  })

  it('an idle listener that wakes the agent and a latched replay start one driver, not two', async () => {
    const h = boot()
    const agent = h.agent()
    let first = true
    h.ctx.on('agent/status', ({ status }) => {
      if (status === 'idle' && first) {
        first = false
        agent.followup(user('from idle listener'))
      }
    })
    h.script.push(
      (r: GenerateOptions) =>
        (async function* (): AsyncGenerator<StreamChunk> {
          await new Promise((_, reject) => r.signal!.addEventListener('abort', () => reject(r.signal!.reason)))
        })(),
      say('one'),
      say('two'),
    )
    agent.followup(user('p'))
    await settle()
    agent.cancel({ kind: 'user' }, { keepInbox: true })
    agent.steer(user('latched'))
    await agent.whenIdle()
    const starts = agent.session.events.filter((e) => e.type === 'turn/start').map((e) => (e.data as any).turn)
    expect(starts).toEqual([1, 2, 3])
    expect(h.trace.filter((t) => t.startsWith('L:status'))).toEqual([
      'L:status running',
      'L:status idle',
      'L:status running',
      'L:status idle',
    ])
  })

  it('a new instance over a seeded log replays pending inbox splices', async () => {
    const h = boot()
    const a = h.agent()
    a.inject(user('staged'))
    a.followup(user('queued'))
    a.cancel({ kind: 'user' }, { keepInbox: true })
    await a.whenIdle()
    const b = h.agent({ seed: a.session.events })
    expect(b.inbox.nextStep.map((m) => (m.content[0] as any).text)).toEqual([])
    expect(b.inbox.nextTurn.map((m) => (m.content[0] as any).text)).toEqual([])
    const c0 = h.agent()
    c0.inject(user('staged'))
    const c = h.agent({ seed: c0.session.events })
    expect(c.inbox.nextStep.map((m) => (m.content[0] as any).text)).toEqual(['staged'])
    h.script.push(say('ok'))
    c.followup(user('p'))
    await c.whenIdle()
    expect(h.requests.at(-1)!.messages.map((m) => (m.content[0] as any).text)).toEqual(['staged', 'p'])
  })
  it('wake() starts a turn for input a new instance restored from its log, and only then', async () => {
    const h = boot()
    const first = h.agent()
    first.followup(user('left pending'))
    first.cancel({ kind: 'user' }, { keepInbox: true })
    await first.whenIdle()
    const staged = h.agent()
    staged.inject(user('restored'))
    const resumed = h.agent({ seed: staged.session.events })
    expect(resumed.inbox.hasPending).toBe(true)
    expect(resumed.status).toBe('idle')
    h.script.push(say('answered'))
    expect(resumed.wake()).toBe(true)
    expect(resumed.wake()).toBe(false) // already running
    await resumed.whenIdle()
    expect(h.requests.at(-1)!.messages.map((m) => (m.content[0] as any).text)).toEqual(['restored'])
    expect(resumed.wake()).toBe(false) // nothing pending
    const empty = h.agent()
    expect(empty.wake()).toBe(false)
    expect(empty.session.events.some((e) => e.type === 'turn/start')).toBe(false)
  })
})
