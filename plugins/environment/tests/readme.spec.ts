// Keeps the README example honest.
import { createScope } from '@bridle/scope'
import { renderContextSnapshot, renderPrompt, SystemPrompt } from '@bridle/system-prompt'
import { Context } from 'cordis'
import { expect, it } from 'vitest'
import { Environment } from '../src/index.js'

it('README example', async () => {
  const app = new Context()
  app.plugin(SystemPrompt, { persona: 'You serve customers in {{region}}.' })
  app.plugin(Environment, { environment: 'production', region: 'eu-west-1', labels: { tier: 'gold' } })
  const global = await app.systemPrompt.assemble()
  expect(renderPrompt(global)).toContain('You serve customers in eu-west-1.')
  expect(renderContextSnapshot(global)).toContain('Deployment:\nenvironment: production\nregion: eu-west-1\ntier: gold')
  const canary = { session: { id: 'canary' } }
  createScope(app, canary).ctx.plugin(Environment, { environment: 'canary', region: 'us-east-2' })
  expect(renderPrompt(await app.systemPrompt.assemble({ scope: canary }))).toContain(
    'You serve customers in us-east-2.',
  )
})
