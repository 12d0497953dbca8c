/**
 * How the tool scheduler stops. A cancel must start nothing new (not even a call that was only waiting for a free
 * parallel slot), the turn must not end while a started tool body still runs, and a failure of the tools service
 * itself must end the turn with that failure once every started body settled.
 */
import type { PreparedToolCall, ToolExecutionInput } from '@bridle/tools'
import { describe, expect, it } from 'vitest'
import { boot, callTools, deferred, user, type Harness } from './harness.js'

type Gate = ReturnType<typeof deferred<void>>

/** A concurrency-safe tool whose bodies wait on a per-call gate; `log` records body starts and ends. */
function gatedTool(h: Harness, gates: Map<string, Gate>, log: string[]): void {
  h.ctx.tools.register({
    name: 'slow',
    description: 'waits for its gate',
    parameters: { type: 'object' },
    concurrencySafe: true,
    execute: async (_args, exec) => {
      log.push(`start ${exec.callId}`)
      const gate = deferred()
      gates.set(exec.callId, gate)
      await gate.promise
      log.push(`end ${exec.callId}`)
      return `done ${exec.callId}`
    },
  })
}

/** Waits (by turns of the event loop, not by time) until `cond` holds. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 0))
  expect(cond()).toBe(true)
}

const results = (h: Harness) =>
  h.trace.filter((t) => t.startsWith('S:tool/') || t.startsWith('S:turn/end') || t.startsWith('S:step/end'))

describe('cancelling while calls wait for a parallel slot', () => {
  it('starts no waiting call: they get synthetic results, and no hook or tools/result runs for them', async () => {
    const h = boot({ loop: { maxParallelToolCalls: 1 } })
    const gates = new Map<string, Gate>()
    const log: string[] = []
    gatedTool(h, gates, log)
    const hooks: string[] = []
    h.ctx.on('tools/pre-execute', (exec, next) => {
      hooks.push(`pre ${exec.callId}`)
      return next()
    })
    h.ctx.on('tools/result', (exec) => {
      hooks.push(`result ${exec.callId}`)
    })
    const agent = h.agent()
    h.script.push(callTools({ id: 'c1', name: 'slow' }, { id: 'c2', name: 'slow' }, { id: 'c3', name: 'slow' }))
    agent.followup(user('p'))
    await until(() => gates.has('c1'))
    agent.cancel({ kind: 'user' })
    gates.get('c1')!.resolve()
    await agent.whenIdle()
    expect(log).toEqual(['start c1', 'end c1'])
    expect(hooks).toEqual(['pre c1', 'result c1'])
    expect(results(h)).toEqual([
      'S:tool/call c1',
      'S:tool/result c1 ABORTED',
      'S:tool/call c2',
      'S:tool/result c2 ABORTED_BEFORE_DISPATCH',
      'S:tool/call c3',
      'S:tool/result c3 ABORTED_BEFORE_DISPATCH',
      'S:step/end 1.1',
      'S:turn/end 1 aborted:user',
    ])
  })
})

describe('the turn waits for every started tool body', () => {
  it('after a cancel, a body still running keeps the turn open until it settles, and its result is committed', async () => {
    const h = boot({ loop: { maxParallelToolCalls: 2 } })
    const gates = new Map<string, Gate>()
    const log: string[] = []
    gatedTool(h, gates, log)
    h.ctx.on('session/event', (_s, event) => {
      if (event.type === 'turn/end') log.push('turn/end')
    })
    const agent = h.agent()
    h.script.push(callTools({ id: 'c1', name: 'slow' }, { id: 'c2', name: 'slow' }, { id: 'c3', name: 'slow' }))
    agent.followup(user('p'))
    await until(() => gates.has('c1') && gates.has('c2'))
    agent.cancel({ kind: 'user' })
    gates.get('c1')!.resolve()
    await until(() => results(h).includes('S:tool/result c1 ABORTED'))
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0))
    expect(agent.status).toBe('running')
    expect(log).toEqual(['start c1', 'start c2', 'end c1'])
    gates.get('c2')!.resolve()
    await agent.whenIdle()
    expect(log).toEqual(['start c1', 'start c2', 'end c1', 'end c2', 'turn/end'])
    expect(results(h)).toEqual([
      'S:tool/call c1',
      'S:tool/call c2',
      'S:tool/result c1 ABORTED',
      'S:tool/result c2 ABORTED',
      'S:tool/call c3',
      'S:tool/result c3 ABORTED_BEFORE_DISPATCH',
      'S:step/end 1.1',
      'S:turn/end 1 aborted:user',
    ])
  })
})

describe('a failing tools service (not a failing tool)', () => {
  it('a dispatch that rejects ends the turn with its error after the other started bodies settled', async () => {
    const h = boot({ loop: { maxParallelToolCalls: 2 } })
    const gates = new Map<string, Gate>()
    const log: string[] = []
    gatedTool(h, gates, log)
    // The registry's prepared call for c2 fails to dispatch, as a remote tool host that dropped the connection would.
    const registry = h.ctx.get('tools')!
    const prepare = registry.prepare.bind(registry)
    registry.prepare = async (input: ToolExecutionInput): Promise<PreparedToolCall> => {
      const prepared = await prepare(input)
      if (input.callId !== 'c2') return prepared
      return Object.assign(Object.create(Object.getPrototypeOf(prepared) as object) as PreparedToolCall, prepared, {
        stage: prepared.stage,
        dispatch: () => Promise.reject(new Error('tool host connection lost')),
        finalize: () => prepared.finalize(),
      })
    }
    h.ctx.on('session/event', (_s, event) => {
      if (event.type === 'turn/end') log.push('turn/end')
    })
    const agent = h.agent()
    h.script.push(callTools({ id: 'c1', name: 'slow' }, { id: 'c2', name: 'slow' }, { id: 'c3', name: 'slow' }))
    agent.followup(user('p'))
    await until(() => gates.has('c1'))
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0))
    // the failure stops the scheduler, but c1's body is never abandoned
    expect(agent.status).toBe('running')
    gates.get('c1')!.resolve()
    await agent.whenIdle()
    expect(log).toEqual(['start c1', 'end c1', 'turn/end'])
    const end = agent.session.events.filter((e) => e.type === 'turn/end').at(-1)!.data as { reason: any }
    expect(end.reason.kind).toBe('error')
    expect(end.reason.error.message).toBe('tool host connection lost')
    // an internal failure is not a tool result: nothing is committed for the calls, c3 never starts
    expect(results(h).filter((t) => t.startsWith('S:tool/'))).toEqual(['S:tool/call c1', 'S:tool/call c2'])
  })
})
