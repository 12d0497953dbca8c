// Keeps the README example honest: the same code, with its printed values asserted.
import { callId } from '@bridle/llm'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import { expect, it } from 'vitest'
import { z } from 'zod'

it('README example', async () => {
  const app = new Context()
  app.plugin(SystemPrompt)
  app.plugin(ToolRegistry)
  app.plugin({
    name: 'greeter',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register({
        name: 'greet',
        description: 'Greet someone by name.',
        parameters: z.object({ name: z.string() }),
        concurrencySafe: true,
        execute: ({ name }) => `Hello, ${name}!`,
      })
    },
  })
  const signal = new AbortController().signal
  const ok = await app.tools.execute({ callId: callId('c1'), name: 'greet', rawArguments: '{"name":"Ada"}', signal })
  expect(ok.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
  const bad = await app.tools.execute({ callId: callId('c2'), name: 'greet', rawArguments: '{"name":3}', signal })
  expect(bad.content).toEqual([
    { type: 'text', text: 'Error: invalid arguments: name: Invalid input: expected string, received number' },
  ])
  expect((await app.systemPrompt.assemble()).tools.map((t) => t.name)).toEqual(['greet'])
})
