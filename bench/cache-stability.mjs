// Prompt-cache stability: a scripted 50-step run whose plugins load in random order and whose runtime context
// changes every few steps. Every request must keep the previous request's system and tools byte-identical and
// its messages as a strict prefix.
import { bootCore, llm, prng, shuffle, tick } from './lib.mjs'

export async function cacheStability() {
  const steps = 50
  const random = prng(20261130)
  const ctx = bootCore()
  const requests = []
  ctx.llm.registerAdapter(['bench'], {
    async *stream(request) {
      requests.push(
        JSON.parse(
          JSON.stringify({ system: request.system ?? '', tools: request.tools ?? [], messages: request.messages }),
        ),
      )
      yield { type: 'block-start', index: 0, blockType: 'text' }
      yield { type: 'text-delta', index: 0, text: `answer ${requests.length}` }
      yield { type: 'block-end', index: 0, block: { type: 'text', text: `answer ${requests.length}` } }
      yield { type: 'finish', reason: { kind: 'stop' } }
    },
  })
  let clock = 0
  const tool = (name) => (c) =>
    c.tools.register({
      name,
      description: name[0],
      parameters: { type: 'object', properties: {} },
      execute: () => name[0],
    })
  const plugins = [
    (c) => c.systemPrompt.section({ name: 'plugin:guidance-a', order: 110, text: 'Prefer reading before writing.' }),
    (c) => c.systemPrompt.section({ name: 'plugin:guidance-b', order: 120, text: 'Quote file names exactly.' }),
    (c) =>
      c.systemPrompt.context({ name: 'plugin:clock', order: 10, text: () => `logical time: ${Math.floor(clock / 4)}` }),
    tool('zulu'),
    tool('alpha'),
    tool('mike'),
  ]
  for (const apply of shuffle(plugins, random))
    ctx.plugin({ name: 'bench-plugin', inject: ['systemPrompt', 'tools'], apply })
  await tick()
  const agent = ctx.agentLoop.create({ provider: 'bench', model: 'scripted' })
  for (let i = 0; i < steps; i++) {
    clock = i
    agent.followup(llm.createUserMessage(`question ${i}`))
    await agent.whenIdle()
  }
  await agent.dispose()
  let broken = 0
  for (let i = 1; i < requests.length; i++) {
    const [p, c] = [requests[i - 1], requests[i]]
    const prefix =
      p.messages.every((m, k) => JSON.stringify(m) === JSON.stringify(c.messages[k])) &&
      c.messages.length > p.messages.length
    if (p.system !== c.system || JSON.stringify(p.tools) !== JSON.stringify(c.tools) || !prefix) broken += 1
  }
  return {
    title: 'Prompt-cache stability (50 steps, random plugin load order, context changing every 4 steps)',
    columns: ['requests', 'system + tools identical, messages a strict prefix', 'breaks'],
    rows: [
      [
        String(requests.length),
        broken === 0 ? 'every request' : `${requests.length - 1 - broken} of ${requests.length - 1}`,
        String(broken),
      ],
    ],
    bars: [
      {
        name: 'no request breaks the previous prefix',
        value: broken,
        limit: 0,
        ok: broken === 0 && requests.length === steps,
      },
    ],
  }
}
