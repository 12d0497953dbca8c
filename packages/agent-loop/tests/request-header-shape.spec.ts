/**
 * The shape of the logged `request/header` and of the request built from it: fields that would be empty are left out
 * (of both), and while the header stays unchanged every request is built from the one already logged, so adapters,
 * the digester and the freezer see the very same tools array step after step.
 */
import type { GenerateOptions } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { boot, say, user, type Harness } from './harness.js'

type Logged = { header: Record<string, unknown>; reason: string; sections: unknown }

const headers = (events: readonly { type: string; data: unknown }[]) =>
  events.filter((e) => e.type === 'request/header').map((e) => e.data as Logged)

async function turn(h: Harness, agent: ReturnType<Harness['agent']>, text: string): Promise<GenerateOptions> {
  h.script.push(say(`re: ${text}`))
  agent.followup(user(text))
  await agent.whenIdle()
  return h.requests.at(-1)!
}

describe('request/header leaves out what is empty', () => {
  it('no system text, no tools, a route without defaults: the header is the config alone, the request has neither field', async () => {
    const h = boot({ systemPrompt: { includeHarnessIdentity: false } })
    const agent = h.agent()
    const request = await turn(h, agent, 'hi')
    const [logged] = headers(agent.session.events)
    expect(logged).toEqual({ header: { config: { provider: 'mock', model: 'm1' } }, reason: 'initial', sections: [] })
    expect('system' in request).toBe(false)
    expect('tools' in request).toBe(false)
  })
})

describe('an unchanged header is reused', () => {
  it('consecutive requests carry the logged tools array itself until the tools change', async () => {
    const h = boot()
    const tool = (name: string) =>
      h.ctx.tools.register({ name, description: name, parameters: { type: 'object' }, execute: () => name })
    tool('alpha')
    const agent = h.agent()
    const first = await turn(h, agent, 'one')
    const second = await turn(h, agent, 'two')
    expect(headers(agent.session.events).map((d) => d.reason)).toEqual(['initial'])
    const logged = headers(agent.session.events)[0]!.header.tools
    expect(first.tools).toBe(logged)
    expect(second.tools).toBe(logged)

    tool('beta')
    const third = await turn(h, agent, 'three')
    expect(headers(agent.session.events).map((d) => d.reason)).toEqual(['initial', 'change'])
    expect(third.tools?.map((t) => t.name)).toEqual(['alpha', 'beta'])
    expect(third.tools).toBe(headers(agent.session.events)[1]!.header.tools)
    expect(Object.isFrozen(third.tools)).toBe(true)
  })
})
