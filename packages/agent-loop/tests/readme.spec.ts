/** The README examples, run from the README's text (what they print asserted). */
import { createUserMessage } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { readmeBlock, runExample } from '../../../tests/support/readme-example.js'

const readme = new URL('../README.md', import.meta.url)

describe('README examples', () => {
  it('an agent answering with a scripted adapter', async () => {
    const { printed } = await runExample(readmeBlock(readme), import.meta.url)
    expect(printed).toEqual(
      [
        'agent/inbox/spliced',
        'turn/start',
        'agent/inbox/spliced',
        'step/start',
        'user/message',
        'request/header',
        'request/context',
        'request/digest',
        'assistant/chunk',
        'assistant/chunk',
        'assistant/chunk',
        'assistant/chunk',
        'assistant/message',
        'step/end',
        'turn/end',
      ].map((type, seq) => [seq, type]),
    )
  })

  it('a pre-step policy, added to the first example’s app', async () => {
    // The first example without its agent, exporting its context; then the policy block as written.
    const first = readmeBlock(readme)
    const app = first.slice(0, first.indexOf('const agent = '))
    const { exports } = await runExample(
      `${app}\n${readmeBlock(readme, { index: 1 })}\nexport { ctx }\n`,
      import.meta.url,
    )
    const ctx = exports.ctx as import('cordis').Context
    const agent = ctx.agentLoop.create({ provider: 'scripted', model: 'terse' })
    agent.followup(createUserMessage('please rm -rf /'))
    await agent.whenIdle()
    expect(agent.session.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'blocked' } })
    agent.followup(createUserMessage('say hi'))
    await agent.whenIdle()
    expect(agent.session.events.at(-1)!.data).toEqual({ turn: 2, reason: { kind: 'completed' } })
    await agent.dispose()
  })
})
