/**
 * Black-box conformance with issue 5 (`@bridle/plugin-workspace`): `workspace:cwd` and `workspace:git` contexts,
 * git read with time and size bounds and silently absent otherwise, the `{{cwd}}` variable, and the paths section.
 * Public entry only.
 */
import { execFileSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import DefaultWorkspace, { Workspace } from '@bridle/plugin-workspace'
import { createScope } from '@bridle/scope'
import { renderContextSections, renderPrompt, SystemPrompt, type AssembleContext } from '@bridle/system-prompt'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

let base: string
let repo: string
let plain: string
let slowGit: string

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
  })

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-ws-spec-')))
  repo = join(base, 'repo')
  plain = join(base, 'plain')
  await mkdir(repo)
  await mkdir(plain)
  git(repo, 'init', '-q', '-b', 'feature')
  await writeFile(join(repo, 'a.txt'), 'a\n')
  git(repo, 'add', 'a.txt')
  git(repo, 'commit', '-q', '-m', 'first')
  await writeFile(join(repo, 'a.txt'), 'changed\n')
  await writeFile(join(repo, 'secret-plan.txt'), 'new\n')
  slowGit = join(base, 'slow-git')
  await writeFile(slowGit, '#!/bin/sh\nexec sleep 30\n')
  await chmod(slowGit, 0o755)
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

const agentAt = (cwd: string) => ({ session: { id: `s-${cwd}`, header: { cwd } } })
function load(persona = '') {
  const root = new Context()
  root.plugin(SystemPrompt, { persona })
  return root
}
async function view(root: Context, agent?: object) {
  const assembly = await root.systemPrompt.assemble(
    (agent === undefined ? {} : { scope: agent, agent }) as AssembleContext,
  )
  return { assembly, system: renderPrompt(assembly), contexts: renderContextSections(assembly) }
}

describe('workspace: contexts', () => {
  it('exports the plugin as named and default export', () => {
    expect(DefaultWorkspace).toBe(Workspace)
  })
  it('workspace:cwd carries the agent cwd; workspace:git the branch and a short dirty summary without file names', async () => {
    const root = load()
    root.plugin(Workspace, { gitTimeoutMs: 20_000 })
    const { contexts } = await view(root, agentAt(repo))
    expect(contexts.map((c) => c.name)).toEqual(['workspace:cwd', 'workspace:git'])
    expect(contexts[0]!.text).toBe(`cwd: ${repo}`)
    expect(contexts[1]!.text).toContain('branch feature')
    expect(contexts[1]!.text).toContain('dirty')
    expect(contexts[1]!.text).not.toContain('secret-plan')
  })
  it('workspace:git is silently absent outside a repository, when git is missing, and when git exceeds its time bound', async () => {
    const cases: [object, string][] = [
      [{ gitTimeoutMs: 20_000 }, plain],
      [{ gitBinary: join(base, 'no-such-git') }, repo],
      [{ gitBinary: slowGit, gitTimeoutMs: 100 }, repo],
    ]
    for (const [config, cwd] of cases) {
      const root = load()
      const errors: unknown[] = []
      root.on('internal/error', (e) => void errors.push(e))
      root.plugin(Workspace, config)
      const { contexts } = await view(root, agentAt(cwd))
      expect(contexts.map((c) => c.name)).toEqual(['workspace:cwd'])
      expect(errors).toEqual([])
    }
  })
  it('git: false leaves git out entirely', async () => {
    const root = load()
    root.plugin(Workspace, { git: false })
    expect((await view(root, agentAt(repo))).assembly.contexts.map((c) => c.name)).toEqual(['workspace:cwd'])
  })
})

describe('workspace: variable and section', () => {
  it('provides {{cwd}}, also when a registered cwd variable has no value for this assembly', async () => {
    const root = load('You work in {{cwd}}.')
    root.plugin(Workspace, { git: false })
    expect((await view(root, agentAt(repo))).system).toContain(`You work in ${repo}.`)
    const withLoopVariable = load('You work in {{cwd}}.')
    withLoopVariable.systemPrompt.variable('cwd', () => undefined)
    withLoopVariable.plugin(Workspace, { git: false, defaultCwd: plain })
    expect((await view(withLoopVariable)).system).toContain(`You work in ${plain}.`)
  })
  it('adds a section, between the persona and the tool-guidance band, on paths as capabilities', async () => {
    const root = load()
    root.systemPrompt.section({ name: 'probe:guidance', order: 100, text: 'g' })
    root.plugin(Workspace, { git: false })
    const { assembly } = await view(root)
    const names = assembly.sections.map((s) => s.name)
    const own = names.filter((n) => !['harness:identity', 'deployment:persona', 'probe:guidance'].includes(n))
    expect(own).toHaveLength(1)
    expect(names.indexOf(own[0]!)).toBeGreaterThan(names.indexOf('deployment:persona'))
    expect(names.indexOf(own[0]!)).toBeLessThan(names.indexOf('probe:guidance'))
    const text = assembly.sections.find((s) => s.name === own[0])!.text
    expect(text).toContain('capabilities, not authorization')
    expect(text).toMatch(/confirm the working directory/)
  })
  it('loaded through an agent’s scope it applies to that agent only; unloading removes everything', async () => {
    const root = load()
    const mine = agentAt(repo)
    const other = agentAt(plain)
    const scope = createScope(root, mine)
    createScope(root, other)
    const fork = scope.ctx.plugin(Workspace, { git: false })
    expect((await view(root, mine)).contexts.map((c) => c.text)).toEqual([`cwd: ${repo}`])
    expect((await view(root, other)).contexts).toEqual([])
    fork.dispose()
    const after = await view(root, mine)
    expect(after.contexts).toEqual([])
    expect(after.assembly.sections.map((s) => s.name)).toEqual(['harness:identity', 'deployment:persona'])
    expect(after.assembly.variables).toEqual({})
  })
})
