/** Tool order reaches the request header canonically: registration order never does, toolOrder always does. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { boot, say, user } from '../packages/agent-loop/tests/harness.js'

function withTools(names: string[], systemPrompt: Record<string, unknown> = {}) {
  const h = boot({ systemPrompt })
  for (const name of names) {
    h.ctx.tools.register({
      name,
      description: `The ${name} tool.`,
      parameters: { type: 'object', properties: { [name]: { type: 'string' } } },
      execute: () => name,
    })
  }
  return h
}

async function oneTurn(h: ReturnType<typeof boot>) {
  const agent = h.agent({ sessionId: 'same' })
  h.script.push(say('ok'))
  agent.followup(user('hi'))
  await agent.whenIdle()
  return agent
}

const headersOf = (agent: { session: { events: readonly { type: string; data: unknown }[] } }) =>
  agent.session.events.filter((e) => e.type === 'request/header').map((e) => e.data)

describe('tool order', () => {
  it('zulu, alpha, mike registered in two different orders give identical request/header events', async () => {
    const a = withTools(['zulu', 'alpha', 'mike'])
    const b = withTools(['mike', 'zulu', 'alpha'])
    const ha = headersOf(await oneTurn(a))
    const hb = headersOf(await oneTurn(b))
    expect(ha).toHaveLength(1)
    expect(JSON.stringify(ha)).toBe(JSON.stringify(hb))
    expect((ha[0] as any).header.tools.map((t: { name: string }) => t.name)).toEqual(['alpha', 'mike', 'zulu'])
    expect(a.requests[0]!.tools!.map((t) => t.name)).toEqual(['alpha', 'mike', 'zulu'])
    expect(JSON.stringify(a.requests[0]!.tools)).toBe(JSON.stringify(b.requests[0]!.tools))
  })

  it('an explicit toolOrder shapes both the header and the adapter request', async () => {
    const h = withTools(['zulu', 'alpha', 'mike'], { toolOrder: ['mike', '<unlisted-tools>', 'alpha'] })
    const agent = await oneTurn(h)
    const header = headersOf(agent)[0] as { header: { tools: { name: string }[] } }
    expect(header.header.tools.map((t) => t.name)).toEqual(['mike', 'zulu', 'alpha'])
    expect(h.requests[0]!.tools!.map((t) => t.name)).toEqual(['mike', 'zulu', 'alpha'])
  })

  it('a toolOrder naming a ghost tool gives a turn with start and end but no step and no request', async () => {
    const h = withTools(['zulu', 'alpha', 'mike'], { toolOrder: ['ghost', '<unlisted-tools>'] })
    const agent = await oneTurn(h)
    const types = agent.session.events.map((e) => e.type)
    expect(types).toEqual(['agent/inbox/spliced', 'turn/start', 'agent/inbox/spliced', 'turn/end'])
    const end = agent.session.events.at(-1)!.data as any
    expect(end.reason).toEqual({
      kind: 'error',
      error: { message: 'toolOrder lists unregistered tool "ghost"; known tools: alpha, mike, zulu', code: 'UNKNOWN' },
    })
    expect(h.requests).toHaveLength(0)
    expect(agent.session.requestHeader()).toBeUndefined()
  })

  it('any registration order of any tool set gives the same header as sorted registration (fast-check)', async () => {
    const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/)
    await fc.assert(
      fc.asyncProperty(
        fc
          .uniqueArray(name, { minLength: 1, maxLength: 6 })
          .chain((names) => fc.tuple(fc.constant(names), fc.shuffledSubarray(names, { minLength: names.length }))),
        async ([names, shuffled]) => {
          const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
          const a = headersOf(await oneTurn(withTools(shuffled)))
          const b = headersOf(await oneTurn(withTools(sorted)))
          expect(JSON.stringify(a)).toBe(JSON.stringify(b))
          expect((a[0] as any).header.tools.map((t: { name: string }) => t.name)).toEqual(sorted)
        },
      ),
      { numRuns: 15 },
    )
  })
})
