import { expect, it } from 'vitest'
import { readmeBlock, runExample } from '../../../tests/support/readme-example.js'

/** Runs the README example from the README's text and checks what it prints. */
it('the README example runs and prints what its comments say', async () => {
  const code = readmeBlock(new URL('../README.md', import.meta.url), { lang: 'js' })
  const { printed } = await runExample(code, import.meta.url)
  expect(printed.map((args) => args[0])).toEqual([
    'sections changed',
    'sections changed',
    'sections changed',
    'sections changed',
    [
      ['persona', 'You are helpful.'],
      ['style', 'Show code.'],
      ['task', 'Fix the bug.'],
    ],
    [
      ['persona', 'You are helpful.'],
      ['style', 'Be brief.'],
    ],
    '[x] | untagged',
    'sections changed',
    undefined,
  ])
})
