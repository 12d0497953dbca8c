// The README examples, run from the README's text.
import type { Message } from '@bridle/llm'
import { expect, it } from 'vitest'
import { readmeBlock, runExample, swapOnce } from '../../../tests/support/readme-example.js'
import type { ReconstructedRequest, SessionEvent } from '../src/index.js'

const readme = new URL('../README.md', import.meta.url)

it('README example: append, compact, derive, reconstruct', async () => {
  let code = readmeBlock(readme)
  code = swapOnce(code, 'session.deriveMessages() //', 'export const history = session.deriveMessages() //')
  code = swapOnce(
    code,
    'reconstructRequest(session.events, { turn: 1, step: 1 }).request',
    'export const step1 = reconstructRequest(session.events, { turn: 1, step: 1 })',
  )
  const { exports } = await runExample(`${code}\nexport { prompt }\n`, import.meta.url)
  const history = exports.history as Message[]
  const step1 = exports.step1 as ReconstructedRequest
  expect(history.map((m) => m.content[0])).toEqual([
    { type: 'text', text: 'Earlier: the user asked about package.json; it is a pnpm monorepo.' },
  ])
  expect(step1.request).toMatchObject({ provider: 'deepseek', model: 'deepseek-chat', system: 'You are terse.' })
  expect(step1.messages).toEqual([(exports.prompt as SessionEvent).data])
})

it('README example: the session/event listener', async () => {
  const { printed } = await runExample(readmeBlock(readme, { index: 1 }), import.meta.url)
  expect(printed).toEqual([['s1', 0, 'turn/start']])
})
