// The README example, run from the README's text.
import { expect, it } from 'vitest'
import { readmeBlock, runExample } from '../../../tests/support/readme-example.js'

it('README example', async () => {
  const { printed } = await runExample(readmeBlock(new URL('../README.md', import.meta.url)), import.meta.url)
  expect(printed).toHaveLength(2)
  expect(printed[0]![0]).toContain(`You work in ${process.cwd()}.`)
  expect(printed[0]![0]).toContain('Workspace and paths:')
  expect(printed[1]![0]).toMatch(/^Current runtime context\..*\n\ncwd: /)
})
