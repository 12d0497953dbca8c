// Keeps the README example honest.
import { callId } from '@bridle/llm'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import { expect, it } from 'vitest'
import { ReadFile } from '../src/index.js'

it('README example', async () => {
  const app = new Context()
  app.plugin(SystemPrompt)
  app.plugin(ToolRegistry)
  app.plugin(ReadFile, { root: process.cwd(), maxBytes: 32 * 1024 })
  const result = await app.tools.execute({
    callId: callId('c1'),
    name: 'read_file',
    rawArguments: '{"path":"package.json","limit":5}',
    signal: new AbortController().signal,
  })
  expect(result.content[0]).toMatchObject({
    type: 'text',
    text: expect.stringMatching(/^ {5}1\t\{\n {5}2\t {2}"name": /),
  })
  const refused = await app.tools.execute({
    callId: callId('c2'),
    name: 'read_file',
    rawArguments: '{"path":"../../etc/passwd"}',
    signal: new AbortController().signal,
  })
  expect(refused.error).toMatchObject({ info: { name: 'ReadFileError', code: 'OUTSIDE_WORKSPACE' } })
  expect(refused.error!.message).toMatch(/^path "\.\.\/\.\.\/etc\/passwd" is outside the workspace/)
})
