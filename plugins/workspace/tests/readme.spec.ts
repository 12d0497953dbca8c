// Keeps the README example honest.
import { renderContextSnapshot, renderPrompt, SystemPrompt, type AssembleContext } from '@bridle/system-prompt'
import { Context } from 'cordis'
import { expect, it } from 'vitest'
import { Workspace } from '../src/index.js'

it('README example', async () => {
  const app = new Context()
  app.plugin(SystemPrompt, { persona: 'You work in {{cwd}}.' })
  app.plugin(Workspace, { gitTimeoutMs: 1000 })
  const agent = { session: { id: 's1', header: { cwd: process.cwd() } } }
  const assembly = await app.systemPrompt.assemble({ scope: agent, agent } as AssembleContext)
  expect(renderPrompt(assembly)).toContain(`You work in ${process.cwd()}.`)
  expect(renderPrompt(assembly)).toContain('Workspace and paths:')
  expect(renderContextSnapshot(assembly)).toMatch(/^Current runtime context\..*\n\ncwd: /)
})
