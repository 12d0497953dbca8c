// The README's example, run from the README's text: a plugin registers a section, a context, a tool and a variable;
// disposing it removes all four and fires one `system-prompt/change` per registration.
import { expect, it } from 'vitest'
import { readmeBlock, runExample, swapOnce } from '../../../tests/support/readme-example.js'
import { type PromptAssembly, renderContextSnapshot, renderPrompt } from '../src/index.js'

it('README example', async () => {
  let code = readmeBlock(new URL('../README.md', import.meta.url))
  // The example's bare expressions become exports; the line the README says throws becomes a function to call.
  code = swapOnce(code, 'changes // 4', 'export const changesBefore = changes // 4')
  code = swapOnce(code, 'changes // 8', 'export const changesAfter = changes // 8')
  code = swapOnce(
    code,
    'renderPrompt(after)\n// throws',
    'export const renderAfter = () => renderPrompt(after)\n// throws',
  )
  const { exports } = await runExample(`${code}\nexport { before, after }\n`, import.meta.url)
  const before = exports.before as PromptAssembly
  const after = exports.after as PromptAssembly

  expect(renderPrompt(before)).toBe(
    'You are an AI agent powered by Bridle.\n\nYou are working in /work/demo.\n\nRead files before editing them.',
  )
  expect(renderContextSnapshot(before)).toBe(
    'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\ngit: clean',
  )
  expect(before.tools.map((tool) => tool.name)).toEqual(['read_file'])
  expect(exports.changesBefore).toBe(4)
  expect(exports.changesAfter).toBe(8)
  expect(after.tools).toEqual([])
  expect(after.contexts).toEqual([])
  expect(exports.renderAfter).toThrow(
    'unknown prompt variable "{{cwd}}" in section "deployment:persona"; registered variables: (none)',
  )
})
