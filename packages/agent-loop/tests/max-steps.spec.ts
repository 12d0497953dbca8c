import { describe, expect, it } from 'vitest'
import { DEFAULT_MAX_STEPS } from '@bridle/agent-loop'
import { boot, callTools, say, user, type Harness } from './harness.js'

/** A model that calls `tick` at every step: more scripted tool calls than any cap lets it make. */
function runaway(h: Harness) {
  let calls = 0
  h.ctx.tools.register({
    name: 'tick',
    description: 'does nothing',
    parameters: { type: 'object' },
    execute: () => `tick ${++calls}`,
  })
  for (let n = 1; n <= DEFAULT_MAX_STEPS + 10; n++) h.script.push(callTools({ id: `c${n}`, name: 'tick' }))
  return { calls: () => calls }
}

const turnEnds = (h: Harness) =>
  h.ctx.sessions
    .list()
    .flatMap((s) => s.events)
    .filter((e) => e.type === 'turn/end')
    .map((e) => (e.data as { reason: unknown }).reason)

describe('maxSteps: the step cap of a turn', () => {
  it('stops a model that calls a tool at every step after maxSteps steps, with the typed reason in the log', async () => {
    const h = boot()
    const model = runaway(h)
    const agent = h.agent({ maxSteps: 3 })
    agent.followup(user('loop forever'))
    await agent.whenIdle()
    expect(h.requests).toHaveLength(3)
    expect(model.calls()).toBe(3)
    expect(turnEnds(h)).toEqual([{ kind: 'max-steps', steps: 3 }])
    // the turn ends right after the third step: no step 4 was opened, nothing more was claimed
    expect(h.trace.filter((t) => t.startsWith('S:step/start'))).toEqual([
      'S:step/start 1.1',
      'S:step/start 1.2',
      'S:step/start 1.3',
    ])
    expect(h.trace.slice(-3)).toEqual(['S:step/end 1.3', 'S:turn/end 1 max-steps', 'L:status idle'])
  })

  it(`has a default of ${DEFAULT_MAX_STEPS} steps`, async () => {
    const h = boot()
    runaway(h)
    const agent = h.agent()
    agent.followup(user('loop forever'))
    await agent.whenIdle()
    expect(h.requests).toHaveLength(DEFAULT_MAX_STEPS)
    expect(turnEnds(h)).toEqual([{ kind: 'max-steps', steps: DEFAULT_MAX_STEPS }])
  })

  it('a turn that completes at exactly maxSteps ends completed, and the next turn has its own budget', async () => {
    const h = boot()
    h.ctx.tools.register({ name: 'tick', description: 'd', parameters: { type: 'object' }, execute: () => 'ok' })
    const agent = h.agent({ maxSteps: 2 })
    h.script.push(callTools({ id: 'a', name: 'tick' }), say('done'))
    agent.followup(user('one'))
    await agent.whenIdle()
    h.script.push(callTools({ id: 'b', name: 'tick' }), say('done again'))
    agent.followup(user('two'))
    await agent.whenIdle()
    expect(turnEnds(h)).toEqual([{ kind: 'completed' }, { kind: 'completed' }])
  })

  it('leaves a capped turn’s pending input for the next prompt instead of starting a turn on its own', async () => {
    const h = boot()
    h.ctx.tools.register({ name: 'tick', description: 'd', parameters: { type: 'object' }, execute: () => 'ok' })
    const agent = h.agent({ maxSteps: 1 })
    h.script.push(callTools({ id: 'a', name: 'tick' }))
    agent.followup(user('one'))
    agent.followup(user('queued'))
    await agent.whenIdle()
    expect(turnEnds(h)).toEqual([{ kind: 'max-steps', steps: 1 }])
    expect(agent.inbox.nextTurn).toHaveLength(1)
    expect(h.requests).toHaveLength(1)
  })

  it('refuses a maxSteps that is not a positive safe integer', () => {
    const h = boot()
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => h.agent({ maxSteps: bad })).toThrow('agent maxSteps must be a positive safe integer')
    }
  })
})
