// The README example, run from the README's text (it reads package.json in the current folder).
import { expect, it } from 'vitest'
import { readmeBlock, runExample } from '../../../tests/support/readme-example.js'

it('README example', async () => {
  const { printed } = await runExample(readmeBlock(new URL('../README.md', import.meta.url)), import.meta.url)
  expect(printed).toHaveLength(2)
  expect(printed[0]![0]).toMatchObject({
    type: 'text',
    text: expect.stringMatching(/^ {5}1\t\{\n {5}2\t {2}"name": /),
  })
  const refused = printed[1]![0] as { message: string }
  expect(refused).toMatchObject({ info: { name: 'ReadFileError', code: 'OUTSIDE_WORKSPACE' } })
  expect(refused.message).toMatch(/^path "\.\.\/\.\.\/etc\/passwd" is outside the workspace/)
})
