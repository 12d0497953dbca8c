import { describe, expect, it } from 'vitest'
import { isLoopRequest } from '@bridle/llm'
import { reconstructRequest, verifyDigests, requestDigestParts as sessionDigestParts } from '@bridle/session'
import { RUNTIME_CONTEXT_CLEARED } from '@bridle/agent-loop'
import { boot, callTools, say, user } from './harness.js'

const snapshotsOf = (trace: string[]) =>
  trace.filter((t) => t.startsWith('S:user/message [') || t.startsWith('S:request/header'))

describe('request building and snapshots', () => {
  it('the request is deep-frozen, loop-marked, carries session id and signal, and matches its digest', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const request = h.requests[0]!
    expect(Object.isFrozen(request)).toBe(true)
    expect(Object.isFrozen(request.messages)).toBe(true)
    expect(isLoopRequest(request)).toBe(true)
    expect(request.sessionId).toBe(agent.id)
    expect(request.signal).toBeInstanceOf(AbortSignal)
    const { signal: _s, sessionId: _i, ...sent } = request
    const rebuilt = reconstructRequest(agent.session.events, { turn: 1, step: 1 })
    expect(JSON.parse(JSON.stringify(rebuilt.request))).toEqual(JSON.parse(JSON.stringify(sent)))
    const digest = agent.session.events.find((e) => e.type === 'request/digest')!.data as any
    expect(digest).toMatchObject({ turn: 1, step: 1, attempt: 1, algorithm: 'sha256' })
    expect(digest).toMatchObject(sessionDigestParts(request))
    expect(verifyDigests(agent.session.events).every((r) => r.ok)).toBe(true)
  })

  it('request/header: initial once, nothing while unchanged, change when a tool appears', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(say('1'), say('2'), say('3'))
    agent.followup(user('a'))
    await agent.whenIdle()
    agent.followup(user('b'))
    await agent.whenIdle()
    const off = h.ctx.tools.register({
      name: 'late',
      description: 'd',
      parameters: { type: 'object' },
      execute: () => 'x',
    })
    agent.followup(user('c'))
    await agent.whenIdle()
    off()
    expect(h.trace.filter((t) => t.startsWith('S:request/'))).toEqual([
      'S:request/header initial',
      'S:request/context',
      'S:request/digest 1.1#1',
      'S:request/digest 2.1#1',
      'S:request/header change',
      'S:request/digest 3.1#1',
    ])
    expect(h.requests[2]!.tools?.map((t) => t.name)).toEqual(['late'])
    expect(h.requests[1]!.tools).toBeUndefined()
  })

  it('X2: snapshots are deduplicated, re-emitted on change, cleared when contexts vanish; one header overall', async () => {
    const h = boot()
    const agent = h.agent()
    let mode = 'ro'
    const off = h.ctx.systemPrompt.context({ name: 'mode', order: 0, text: () => `Mode: ${mode}` })
    for (const [i, next] of ['ro', 'ro', 'rw', 'gone', 'gone'].entries()) {
      if (next === 'gone') off()
      else mode = next
      h.script.push(say(`answer ${i}`))
      agent.followup(user(`q${i}`))
      await agent.whenIdle()
    }
    expect(snapshotsOf(h.trace)).toEqual([
      'S:user/message [snapshot] Mode: ro',
      'S:request/header initial',
      'S:user/message [snapshot] Mode: rw',
      'S:user/message [cleared]',
    ])
    const owned = agent.session.events.filter(
      (e) => e.type === 'user/message' && (e.data as any).source.kind === 'plugin',
    )
    expect((owned[0]!.data as any).source).toEqual({
      kind: 'plugin',
      plugin: '@bridle/system-prompt',
      form: 'snapshot',
      sections: [{ name: 'mode', text: 'Mode: ro' }],
    })
    expect((owned[2]!.data as any).source).toEqual({ kind: 'plugin', plugin: '@bridle/system-prompt' })
    expect((owned[2]!.data as any).content).toEqual([{ type: 'text', text: RUNTIME_CONTEXT_CLEARED }])
    // The snapshot enters after the prompt, within the same step, never in the system prompt.
    expect(h.requests[0]!.messages.map((m) => (m.content[0] as any).text)).toEqual([
      'q0',
      'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\nMode: ro',
    ])
    expect(h.requests[0]!.system).toBe('You are an AI agent powered by Bridle.')
  })

  it('a compaction that replaces the retained snapshot makes the next step emit it again; no header', async () => {
    const h = boot()
    const agent = h.agent()
    h.ctx.systemPrompt.context({ name: 'env', order: 0, text: 'cwd: /w' })
    h.script.push(say('one'), say('two'))
    agent.followup(user('q1'))
    await agent.whenIdle()
    const nodes = agent.session.surface.nodes
    agent.session.append('user/message', user('summary'), {
      surfaceOp: { op: 'replace', start: nodes[0]!, end: nodes.at(-1)! },
      sourceEventSeqs: [...nodes],
    })
    agent.followup(user('q2'))
    await agent.whenIdle()
    expect(snapshotsOf(h.trace)).toEqual([
      'S:user/message [snapshot] cwd: /w',
      'S:request/header initial',
      'S:user/message [snapshot] cwd: /w',
    ])
    expect(h.requests[1]!.messages.map((m) => (m.content[0] as any).text.split('\n')[0])).toEqual([
      'summary',
      'q2',
      'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.',
    ])
  })

  it('a restored agent remembers the retained snapshot (no repeat after a fresh instance)', async () => {
    const h = boot()
    const first = h.agent()
    h.ctx.systemPrompt.context({ name: 'env', order: 0, text: 'cwd: /w' })
    h.script.push(say('one'), say('two'))
    first.followup(user('q1'))
    await first.whenIdle()
    const seed = first.session.events
    await first.dispose()
    const second = h.agent({ seed })
    second.followup(user('q2'))
    await second.whenIdle()
    expect(second.session.events.filter((e) => e.type === 'user/message').length).toBe(
      seed.filter((e) => e.type === 'user/message').length + 1,
    )
    const turnStarts = second.session.events.filter((e) => e.type === 'turn/start').map((e) => (e.data as any).turn)
    expect(turnStarts).toEqual([1, 2])
    const headers = second.session.events.filter((e) => e.type === 'request/header').map((e) => (e.data as any).reason)
    expect(headers).toEqual(['initial', 'resume'])
  })

  it('request/context follows the route and the advertised context window', async () => {
    const h = boot()
    h.ctx.llm.registerAdapter(['big'], {
      stream: say('hi') as never,
      resolveModel: (provider: string, model: string) => ({
        provider,
        id: model,
        name: model,
        context: { contextWindow: 128000 },
        defaultMaxTokens: 4096,
      }),
    })
    const agent = h.agent({ provider: 'big', model: 'x' })
    agent.followup(user('p'))
    await agent.whenIdle()
    const events = agent.session.events
    expect(events.find((e) => e.type === 'request/context')!.data).toEqual({
      provider: 'big',
      model: 'x',
      contextWindow: 128000,
    })
    const header = events.find((e) => e.type === 'request/header')!.data as any
    expect(header.header.config).toEqual({ provider: 'big', model: 'x', maxTokens: 4096 })
    expect(header.header.adapterDefaults).toEqual({ maxTokens: true })
  })

  it('an agent/request listener may switch the model; the seed is frozen and listeners see it', async () => {
    const h = boot()
    const agent = h.agent({ maxTokens: 77 })
    let seed: any
    h.ctx.on('agent/request', async (_p, next) => {
      seed = await next()
      expect(() => {
        seed.model = 'mutated'
      }).toThrow(TypeError)
      return { ...seed, model: 'm2', temperature: 0.5 }
    })
    h.script.push(say('ok'))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(seed).toEqual({ provider: 'mock', model: 'm1', maxTokens: 77 })
    expect(h.requests[0]).toMatchObject({ provider: 'mock', model: 'm2', temperature: 0.5, maxTokens: 77 })
  })

  it('maxTokens must be a positive safe integer', () => {
    const h = boot()
    for (const bad of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1]) {
      expect(() => h.agent({ maxTokens: bad })).toThrow(
        new TypeError('agent maxTokens must be a positive safe integer'),
      )
    }
    expect(h.ctx.agentLoop.list()).toEqual([])
  })

  it('tool contexts land in next-step after every tool result and enter the next step', async () => {
    const h = boot()
    h.ctx.tools.register({
      name: 'ctxy',
      description: 'd',
      parameters: { type: 'object' },
      concurrencySafe: true,
      execute: (_a, exec) => {
        exec.deferContext(user(`ctx-${exec.callId}`))
        return 'ok'
      },
    })
    const agent = h.agent()
    h.script.push(callTools({ id: 'c1', name: 'ctxy' }, { id: 'c2', name: 'ctxy' }), say('done'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const i = h.trace.indexOf('S:tool/call c1')
    expect(h.trace.slice(i, i + 13)).toEqual([
      'S:tool/call c1',
      'S:tool/call c2',
      'S:tool/result c1',
      'S:spliced next-step @0 +[ctx-c1]',
      'L:inserted ctx-c1',
      'S:tool/result c2',
      'S:spliced next-step @1 +[ctx-c2]',
      'L:inserted ctx-c2',
      'S:step/end 1.1',
      'S:spliced next-step @0 -2',
      'L:claimed ctx-c1 1',
      'L:claimed ctx-c2 1',
      'S:step/start 1.2',
    ])
    expect(h.requests[1]!.messages.map((m) => m.content[0]!.type)).toEqual([
      'text',
      'tool-call',
      'tool-result',
      'tool-result',
      'text',
      'text',
    ])
  })

  it('seeds: adapter defaults re-derive, explicit effort persists and is restored by a new instance', async () => {
    const h = boot()
    const think = {
      stream: say('hm') as never,
      resolveModel: (provider: string, model: string) => ({
        provider,
        id: model,
        name: model,
        defaultMaxTokens: 1000,
        reasoning: {
          efforts: [
            { id: 'low', name: 'low' },
            { id: 'high', name: 'high' },
          ],
          defaultEffort: 'low',
        },
      }),
    }
    h.ctx.llm.registerAdapter(['think'], think as never)
    const seeds: any[] = []
    let explicit = false
    h.ctx.on('agent/request', async (_p, next) => {
      const seed = await next()
      seeds.push(seed)
      return explicit ? { ...seed, reasoningEffort: 'high' as never } : seed
    })
    const agent = h.agent({ provider: 'think', model: 'deep' })
    agent.followup(user('1'))
    await agent.whenIdle()
    explicit = true
    agent.followup(user('2'))
    await agent.whenIdle()
    explicit = false
    agent.followup(user('3'))
    await agent.whenIdle()
    expect(seeds).toEqual([
      { provider: 'think', model: 'deep' },
      { provider: 'think', model: 'deep' },
      { provider: 'think', model: 'deep', reasoningEffort: 'high' },
    ])
    const headers = agent.session.events.filter((e) => e.type === 'request/header').map((e) => e.data as any)
    expect(headers.map((d) => [d.reason, d.header.config.reasoningEffort, d.header.adapterDefaults])).toEqual([
      ['initial', 'low', { reasoningEffort: true, maxTokens: true }],
      ['change', 'high', { maxTokens: true }],
    ])
    const seed = agent.session.events
    await agent.dispose()
    seeds.length = 0
    const again = h.agent({ provider: 'think', model: 'deep', seed })
    again.followup(user('4'))
    await again.whenIdle()
    expect(seeds).toEqual([{ provider: 'think', model: 'deep', reasoningEffort: 'high' }])
    expect(again.session.events.filter((e) => e.type === 'request/header').at(-1)!.data).toMatchObject({
      reason: 'resume',
    })
  })
})
