/**
 * Prompt-cache placement at station S10 (docs/caching.md#where-the-placement-is-decided): the loop asks a route's
 * adapter that places breakpoints, hands it what the session knows, and records the answer as `request/cache`
 * right before the request's digest, which covers it; a route without `planCache` gets nothing of this.
 */
import type { CachePlan, CachePlanInput, GenerateOptions } from '@bridle/llm'
import { verifyDigests } from '@bridle/session'
import { describe, expect, it } from 'vitest'
import { boot, say, tick, user } from './harness.js'

const tool = (name: string) => ({
  name,
  description: `the ${name} tool`,
  parameters: { type: 'object', properties: {} },
  execute: () => 'ok',
})

describe('cache placement', () => {
  it('records request/cache before each digest, covered by it, with section, tool and prefix facts', async () => {
    const h = boot()
    const inputs: CachePlanInput[] = []
    h.ctx.llm.registerAdapter(['cached'], {
      planCache(input: CachePlanInput): CachePlan {
        inputs.push(input)
        const index = input.request.messages.length - 1
        return { policy: 'test', breakpoints: [{ at: 'message', index, block: 0, ttl: '5m', reason: 'next-request' }] }
      },
      async *stream(request: GenerateOptions) {
        h.requests.push(request)
        yield* await h.script.shift()!(request)
      },
    })
    const rules = (version: number) =>
      h.ctx.systemPrompt.section({ name: 'rules', order: 5, text: `Rules v${version}.` })
    h.ctx.systemPrompt.section({ name: 'persona', order: 1, text: 'You help.' })
    let dispose = rules(1)
    await tick()
    const agent = h.agent({ provider: 'cached', model: 'x' })
    for (const [n, change] of [
      [1, () => {}],
      [2, () => {}],
      [3, () => (dispose(), (dispose = rules(2)), h.ctx.tools.register(tool('ls')))],
    ] as const) {
      change()
      await tick()
      h.script.push(say(`answer ${n}`))
      agent.followup(user(`question ${n}`))
      await agent.whenIdle()
    }

    const events = agent.session.events
    const digests = events.flatMap((e, i) => (e.type === 'request/digest' ? [i] : []))
    expect(digests).toHaveLength(3)
    for (const [n, at] of digests.entries()) {
      expect(events[at - 1]!.type).toBe('request/cache')
      expect((events[at - 1]!.data as { plan: CachePlan }).plan).toEqual(h.requests[n]!.cache)
      expect((events[at]!.data as { cache?: string }).cache).toMatch(/^[0-9a-f]{64}$/)
    }
    expect(verifyDigests(events).map((v) => v.ok)).toEqual([true, true, true])

    const changes = inputs.map((input) => Object.fromEntries(input.sections.map((s) => [s.name, s.changes])))
    expect(changes[0]).toMatchObject({ persona: 0, rules: 0 })
    expect(changes[2]).toMatchObject({ persona: 0, rules: 1 })
    expect(inputs.map((i) => i.toolChanges)).toEqual([0, 0, 1])
    expect(inputs[0]!.previous).toBeUndefined()
    expect(inputs[1]!.previous).toMatchObject({ messageCount: inputs[0]!.request.messages.length, prefixHeld: true })
    expect(inputs[1]!.previous!.plan).toEqual(h.requests[0]!.cache)
    expect(inputs[2]!.previous!.prefixHeld).toBe(false)
    const system = inputs[2]!.request.system!
    const span = inputs[2]!.sections.find((s) => s.name === 'rules')!
    expect(system.slice(span.start, span.end)).toBe('Rules v2.')
  })

  it('a route without planCache records no request/cache and sends no cache field', async () => {
    const h = boot()
    const agent = h.agent()
    h.script.push(say('plain'))
    agent.followup(user('hi'))
    await agent.whenIdle()
    expect(agent.session.events.some((e) => e.type === 'request/cache')).toBe(false)
    expect(h.requests[0]).not.toHaveProperty('cache')
    expect(agent.session.events.find((e) => e.type === 'request/digest')!.data).not.toHaveProperty('cache')
  })
})
