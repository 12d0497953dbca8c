import { describe, expect, it } from 'vitest'
import { boot, callTools, deferred, say, user } from './harness.js'
import { takeLogLines } from '../../../tests/support/logs.js'

type Gate = ReturnType<typeof deferred<void>>

/** Registers `name` whose bodies wait on a per-call gate, recording body starts. */
function gated(h: ReturnType<typeof boot>, name: string, safe: boolean, gates: Map<string, Gate>, started: string[]) {
  h.ctx.tools.register({
    name,
    description: 'gated',
    parameters: { type: 'object' },
    concurrencySafe: safe,
    execute: async (_args, exec) => {
      started.push(exec.callId)
      const gate = deferred()
      gates.set(exec.callId, gate)
      await gate.promise
      return `done ${exec.callId}`
    },
  })
}

async function until(cond: () => boolean) {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 1))
  expect(cond()).toBe(true)
}

const toolLines = (trace: string[]) => trace.filter((t) => /^S:tool\/|^S:spliced next-step @\d+ \+/.test(t))

describe('tool-call scheduler', () => {
  it('T2: pool of 2, out-of-order settlement, results in model order, exclusive barrier last', async () => {
    const h = boot({ loop: { maxParallelToolCalls: 2 } })
    const gates = new Map<string, Gate>()
    const started: string[] = []
    gated(h, 'safe', true, gates, started)
    gated(h, 'solo', false, gates, started)
    const agent = h.agent()
    h.script.push(
      callTools(
        { id: 'c1', name: 'safe' },
        { id: 'c2', name: 'safe' },
        { id: 'c3', name: 'safe' },
        { id: 'c4', name: 'solo' },
      ),
      say('done'),
    )
    agent.followup(user('p'))
    await until(() => started.length === 2)
    expect(toolLines(h.trace)).toEqual(['S:tool/call c1', 'S:tool/call c2'])
    gates.get('c2')!.resolve()
    await until(() => started.length === 3)
    expect(toolLines(h.trace)).toEqual(['S:tool/call c1', 'S:tool/call c2', 'S:tool/call c3'])
    gates.get('c1')!.resolve()
    await until(() => toolLines(h.trace).length === 5)
    expect(toolLines(h.trace).slice(3)).toEqual(['S:tool/result c1', 'S:tool/result c2'])
    gates.get('c3')!.resolve()
    await until(() => started.length === 4)
    gates.get('c4')!.resolve()
    await agent.whenIdle()
    expect(toolLines(h.trace)).toEqual([
      'S:tool/call c1',
      'S:tool/call c2',
      'S:tool/call c3',
      'S:tool/result c1',
      'S:tool/result c2',
      'S:tool/result c3',
      'S:tool/call c4',
      'S:tool/result c4',
    ])
  })

  it('T3: a cancel mid-group drains started bodies (ABORTED, contexts kept) and synthesizes the rest', async () => {
    const h = boot({ loop: { maxParallelToolCalls: 2 } })
    const gates = new Map<string, Gate>()
    const started: string[] = []
    gated(h, 'safe', true, gates, started)
    h.ctx.on('tools/post-execute', (exec, _result, next) => {
      void next
      return { kind: 'accept' as const, additionalContexts: [user(`ctx-${exec.callId}`)] }
    })
    const agent = h.agent()
    h.script.push(
      callTools(
        { id: 'c1', name: 'safe' },
        { id: 'c2', name: 'safe' },
        { id: 'c3', name: 'safe' },
        { id: 'c4', name: 'safe' },
      ),
    )
    agent.followup(user('p'))
    await until(() => started.length === 2)
    agent.cancel({ kind: 'user' })
    gates.get('c1')!.resolve()
    gates.get('c2')!.resolve()
    await agent.whenIdle()
    expect(toolLines(h.trace)).toEqual([
      'S:tool/call c1',
      'S:tool/call c2',
      'S:tool/result c1 ABORTED',
      'S:spliced next-step @0 +[ctx-c1]',
      'S:tool/result c2 ABORTED',
      'S:spliced next-step @1 +[ctx-c2]',
      'S:tool/call c3',
      'S:tool/result c3 ABORTED_BEFORE_DISPATCH',
      'S:tool/call c4',
      'S:tool/result c4 ABORTED_BEFORE_DISPATCH',
    ])
    expect(h.trace.slice(-3)).toEqual(['S:step/end 1.1', 'S:turn/end 1 aborted:user', 'L:status idle'])
    expect(agent.inbox.nextStep.map((m) => (m.content[0] as any).text)).toEqual(['ctx-c1', 'ctx-c2'])
    const c1 = agent.session.events.find((e) => e.type === 'tool/result')!.data as any
    expect(c1.message.content[0].content).toEqual([{ type: 'text', text: 'Error: tool call aborted' }])
  })

  it('tool errors become error results; the model gets a follow-up request', async () => {
    const h = boot()
    h.ctx.tools.register({
      name: 'boom',
      description: 'd',
      parameters: { type: 'object' },
      execute: () => {
        throw new Error('disk on fire')
      },
    })
    const agent = h.agent()
    h.script.push(callTools({ id: 'c1', name: 'boom' }, { id: 'c2', name: 'nope' }), say('sorry'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const results = agent.session.events.filter((e) => e.type === 'tool/result').map((e) => e.data as any)
    expect(results[0].message.content[0]).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error: disk on fire' }],
    })
    expect(results[1].error).toEqual({ name: 'ToolNotFoundError', code: 'UNKNOWN_TOOL' })
    expect(h.requests).toHaveLength(2)
  })

  it('concludeTurn: no follow-up request for the results', async () => {
    const h = boot()
    h.ctx.tools.register({
      name: 'final',
      description: 'd',
      parameters: { type: 'object' },
      execute: (_a, exec) => {
        exec.concludeTurn()
        return 'bye'
      },
    })
    const agent = h.agent()
    h.script.push(callTools({ id: 'c1', name: 'final' }))
    agent.followup(user('p'))
    await agent.whenIdle()
    expect(h.requests).toHaveLength(1)
    expect(h.trace.slice(-3)).toEqual(['S:step/end 1.1', 'S:turn/end 1 completed', 'L:status idle'])
  })

  it('an internal failure (a vetoed tool/call append) ends the turn with an error, no synthetic results', async () => {
    const h = boot()
    h.ctx.tools.register({ name: 't', description: 'd', parameters: { type: 'object' }, execute: () => 'ok' })
    const agent = h.agent()
    h.ctx.on(
      'internal/event' as never,
      ((_type: string, name: string, args: any[]) => {
        if (name === 'session/event' && args[1]?.type === 'tool/call' && args[1]?.data?.callId === 'c2')
          throw new Error('veto c2')
      }) as never,
    )
    h.script.push(callTools({ id: 'c1', name: 't' }, { id: 'c2', name: 't' }, { id: 'c3', name: 't' }))
    agent.followup(user('p'))
    await agent.whenIdle()
    const end = agent.session.events.filter((e) => e.type === 'turn/end').at(-1)!.data as any
    expect(end.reason.kind).toBe('error')
    expect(end.reason.error.message).toContain('veto c2')
    expect(toolLines(h.trace)).toEqual(['S:tool/call c1', 'S:tool/result c1'])
  })

  it('maxParallelToolCalls is validated', () => {
    const h = boot({ loop: { maxParallelToolCalls: 0 } })
    expect(h.ctx.get('agentLoop')).toBeUndefined()
    expect(takeLogLines()).toEqual([
      'error app: ConfigError: agent-loop: invalid config: maxParallelToolCalls: maxParallelToolCalls must be a positive integer',
    ])
  })
})
