import { lifecycleOf } from '@bridle/scope'
import { describe, expect, it } from 'vitest'
import { boot, say, tick, user } from './harness.js'

const snapshotTexts = (events: readonly { type: string; data: unknown }[]) =>
  events
    .filter((e) => e.type === 'user/message')
    .map((e) => (e.data as { content: { text: string }[] }).content[0]!.text)
    .filter((text) => text.startsWith('Current runtime context'))

describe('many agents in one Context', () => {
  it('adds no session/event listener per agent: one router serves them all', async () => {
    const h = boot()
    const hooks = () => lifecycleOf(h.ctx)._hooks['session/event']?.length ?? 0
    const alone = hooks()
    const agents = Array.from({ length: 20 }, () => h.agent())
    expect(hooks()).toBe(alone)
    await Promise.all(agents.map((a) => a.dispose()))
    expect(hooks()).toBe(alone)
  })

  it("routes each session's events to its own agent's runtime-context memory", async () => {
    const h = boot()
    let cwd = '/a'
    h.ctx.systemPrompt.context({ name: 'env', order: 0, text: () => `cwd: ${cwd}` })
    const [first, second] = [h.agent(), h.agent()]
    h.script.push(say('1'), say('2'), say('3'), say('4'))
    first.followup(user('p'))
    await first.whenIdle()
    second.followup(user('p'))
    await second.whenIdle()
    // Each agent entered its snapshot once; an unchanged context is not repeated on the next turn.
    first.followup(user('q'))
    await first.whenIdle()
    cwd = '/b'
    second.followup(user('q'))
    await second.whenIdle()
    expect(snapshotTexts(first.session.events)).toHaveLength(1)
    expect(snapshotTexts(second.session.events).map((t) => t.split('\n\n')[1])).toEqual(['cwd: /a', 'cwd: /b'])
  })

  it('an agent seeded on a reused session id takes its runtime-context memory from the log', async () => {
    const h = boot()
    h.ctx.systemPrompt.context({ name: 'env', order: 0, text: 'cwd: /w' })
    const agent = h.agent({ sessionId: 's' })
    h.script.push(say('1'), say('2'))
    agent.followup(user('p'))
    await agent.whenIdle()
    const events = agent.session.events
    await agent.dispose()
    await tick()
    const again = h.agent({ sessionId: 's', seed: events })
    again.followup(user('q'))
    await again.whenIdle()
    // The seeded log already shows the snapshot, so the new agent does not enter it again.
    expect(snapshotTexts(again.session.events)).toHaveLength(1)
  })
})
