/** The README examples, run as written (console output replaced by assertions). */
import { describe, expect, it } from 'vitest'
import { Context } from 'cordis'
import { AgentLoop } from '@bridle/agent-loop'
import { createUserMessage, LlmRuntime, type StreamChunk } from '@bridle/llm'
import { SessionStore } from '@bridle/session'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'

function app() {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(LlmRuntime)
  ctx.plugin(SystemPrompt, { persona: 'You answer in {{model}} style.' })
  ctx.plugin(ToolRegistry)
  ctx.plugin(AgentLoop)
  ctx.llm.registerAdapter(['scripted'], {
    async *stream(): AsyncIterable<StreamChunk> {
      yield { type: 'block-start', index: 0, blockType: 'text' }
      yield { type: 'text-delta', index: 0, text: 'Hello!' }
      yield { type: 'block-end', index: 0, block: { type: 'text', text: 'Hello!' } }
      yield { type: 'finish', reason: { kind: 'stop' } }
    },
  })
  return ctx
}

describe('README examples', () => {
  it('an agent answering with a scripted adapter', async () => {
    const ctx = app()
    const agent = ctx.agentLoop.create({ provider: 'scripted', model: 'terse', cwd: process.cwd() })
    agent.followup(createUserMessage('Hi there'))
    await agent.whenIdle()
    expect(agent.session.events.map((e) => e.type)).toEqual([
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
    ])
    const header = agent.session.requestHeader()!
    expect(header.system).toBe('You are an AI agent powered by Bridle.\n\nYou answer in terse style.')
    await agent.dispose()
  })

  it('a pre-step policy', async () => {
    const ctx = app()
    ctx.on('agent/pre-step', async ({ messages, step }, next) => {
      const text = JSON.stringify(messages)
      if (step === 1 && text.includes('rm -rf')) return { kind: 'reject' }
      return next()
    })
    const agent = ctx.agentLoop.create({ provider: 'scripted', model: 'terse' })
    agent.followup(createUserMessage('please rm -rf /'))
    await agent.whenIdle()
    expect(agent.session.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'blocked' } })
    agent.followup(createUserMessage('say hi'))
    await agent.whenIdle()
    expect(agent.session.events.at(-1)!.data).toEqual({ turn: 2, reason: { kind: 'completed' } })
  })
})
