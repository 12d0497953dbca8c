// Issue 5: the first plugins (read-file, workspace, environment) with @bridle/tools and @bridle/system-prompt.
// Load order must never shape what the model sees: two orders give byte-identical system text, tools and snapshot.
import { execFileSync } from 'node:child_process'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Environment } from '@bridle/plugin-environment'
import { ReadFile } from '@bridle/plugin-read-file'
import { Workspace } from '@bridle/plugin-workspace'
import { renderContextSnapshot, renderPrompt, SystemPrompt, type AssembleContext } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'

let repo: string
beforeAll(async () => {
  repo = await realpath(await mkdtemp(join(tmpdir(), 'bridle-order-')))
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo })
})
afterAll(async () => {
  await rm(repo, { recursive: true, force: true })
})

type Loader = (ctx: Context) => void
const loaders: Record<string, Loader> = {
  readFile: (ctx) => void ctx.plugin(ReadFile),
  workspace: (ctx) => void ctx.plugin(Workspace, { gitTimeoutMs: 20_000 }), // generous: the test machine is shared
  environment: (ctx) =>
    void ctx.plugin(Environment, { environment: 'production', region: 'eu-west-1', labels: { tier: 'gold' } }),
  grep: (ctx) =>
    void ctx.plugin({
      name: 'grep-tool',
      inject: ['tools'],
      apply: (c: Context) => {
        c.tools.register({
          name: 'grep',
          description: 'Search files.',
          parameters: z.object({ pattern: z.string() }),
          execute: () => '',
        })
      },
    }),
}

async function boot(order: string[]) {
  const root = new Context()
  root.plugin(SystemPrompt, { persona: 'You operate in {{region}} from {{cwd}}.' })
  root.plugin(ToolRegistry)
  for (const name of order) loaders[name]!(root)
  const agent = { session: { id: 's1', header: { cwd: repo } } }
  const assembly = await root.systemPrompt.assemble({ scope: agent, agent } as AssembleContext)
  return {
    system: renderPrompt(assembly),
    tools: JSON.stringify(assembly.tools),
    snapshot: renderContextSnapshot(assembly),
  }
}

describe('issue 5: registration order never reaches the model', () => {
  it('two orders give identical system text, tools and runtime snapshot', async () => {
    const a = await boot(['readFile', 'workspace', 'environment', 'grep'])
    const b = await boot(['grep', 'environment', 'workspace', 'readFile'])
    expect(b).toEqual(a)
    expect(a.system).toContain(`You operate in eu-west-1 from ${repo}.`)
    expect(JSON.parse(a.tools).map((t: { name: string }) => t.name)).toEqual(['grep', 'read_file'])
    expect(a.snapshot).toContain(
      `cwd: ${repo}\n\ngit: branch main (no commits yet), clean\n\nDeployment:\nenvironment: production`,
    )
  })

  it('property: every permutation gives the same bytes', async () => {
    const reference = await boot(Object.keys(loaders))
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(Object.keys(loaders), { minLength: 4 }), async (order) => {
        expect(await boot(order)).toEqual(reference)
      }),
      { numRuns: 12 },
    )
  })
})
