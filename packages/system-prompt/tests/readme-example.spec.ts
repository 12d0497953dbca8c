// The README's example, kept runnable: a plugin registers a section, a context, a tool and a variable;
// disposing it removes all four and fires one `system-prompt/change` per registration.
import { Context } from 'cordis'
import { expect, it } from 'vitest'
import { SystemPrompt, renderContextSnapshot, renderPrompt } from '../src/index.js'

it('README example', async () => {
  const app = new Context()
  app.plugin(SystemPrompt, { persona: 'You are working in {{cwd}}.' })

  let changes = 0
  app.on('system-prompt/change', () => void changes++)

  const workspace = app.plugin({
    inject: ['systemPrompt'],
    apply(ctx: Context) {
      ctx.systemPrompt.variable('cwd', () => '/work/demo')
      ctx.systemPrompt.section({ name: 'workspace:rules', order: 100, text: 'Read files before editing them.' })
      ctx.systemPrompt.context({ name: 'workspace:git', order: 10, text: () => 'git: clean' })
      ctx.systemPrompt.tools(() => ({
        schemas: [
          {
            name: 'read_file',
            description: 'Read a UTF-8 file',
            parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          },
        ],
      }))
    },
  })

  const before = await app.systemPrompt.assemble()
  expect(renderPrompt(before)).toBe(
    'You are an AI agent powered by Bridle.\n\nYou are working in /work/demo.\n\nRead files before editing them.',
  )
  expect(renderContextSnapshot(before)).toBe(
    'Current runtime context. This snapshot supersedes earlier runtime-context snapshots.\n\ngit: clean',
  )
  expect(before.tools.map((tool) => tool.name)).toEqual(['read_file'])
  expect(changes).toBe(4)

  workspace.dispose()
  expect(changes).toBe(8)
  const after = await app.systemPrompt.assemble()
  expect(after.tools).toEqual([])
  expect(after.contexts).toEqual([])
  expect(() => renderPrompt(after)).toThrow(
    'unknown prompt variable "{{cwd}}" in section "deployment:persona"; registered variables: (none)',
  )
})
