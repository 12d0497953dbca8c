// Runs the README example from the README's text, with what it prints asserted.
import { expect, it } from 'vitest'
import { readmeBlock, runExample } from '../../../tests/support/readme-example.js'

it('README example', async () => {
  const { printed } = await runExample(readmeBlock(new URL('../README.md', import.meta.url)), import.meta.url)
  expect(printed).toEqual([
    [[{ type: 'text', text: 'Hello, Ada!' }]],
    [[{ type: 'text', text: 'Error: invalid arguments: name: Invalid input: expected string, received number' }]],
    [['greet']],
  ])
})
