// The README example, run from the README's text.
import { expect, it } from 'vitest'
import { readmeBlock, runExample } from '../../../tests/support/readme-example.js'

it('README example', async () => {
  const { printed } = await runExample(readmeBlock(new URL('../README.md', import.meta.url)), import.meta.url)
  expect(printed).toHaveLength(3)
  expect(printed[0]![0]).toContain('You serve customers in eu-west-1.')
  expect(printed[1]![0]).toContain('Deployment:\nenvironment: production\nregion: eu-west-1\ntier: gold')
  expect(printed[2]![0]).toContain('You serve customers in us-east-2.')
})
