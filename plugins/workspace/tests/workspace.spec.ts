import { execFileSync } from 'node:child_process'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError } from '@bridle/llm'
import { createScope } from '@bridle/scope'
import { renderContextSnapshot, renderPrompt, SystemPrompt, type AssembleContext } from '@bridle/system-prompt'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Config, CWD_CONTEXT, GIT_CONTEXT, PATHS_SECTION, Workspace } from '../src/index.js'

let base: string
let repo: string
let plain: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-ws-')))
  repo = join(base, 'repo')
  plain = join(base, 'plain')
  execFileSync('mkdir', ['-p', repo, plain])
  execFileSync('git', ['init', '-q', '-b', 'trunk'], { cwd: repo })
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

const agentAt = (cwd: string | undefined) => ({ session: { id: `s-${cwd}`, header: cwd === undefined ? {} : { cwd } } })

function setup(persona = '') {
  const root = new Context()
  root.plugin(SystemPrompt, { persona })
  return root
}

async function view(root: Context, agent?: object) {
  const context = (agent === undefined ? {} : { scope: agent, agent }) as AssembleContext
  const assembly = await root.systemPrompt.assemble(context)
  return { assembly, system: renderPrompt(assembly), snapshot: renderContextSnapshot(assembly) }
}

describe('Config', () => {
  it('has defaults and rejects unknown keys and relative defaultCwd', () => {
    expect(Config(undefined)).toEqual({ git: true, gitBinary: 'git', gitTimeoutMs: 1500, gitMaxBytes: 256 * 1024 })
    expect(() => Config({ gti: false } as never)).toThrow(ConfigError)
    expect(() => Config({ defaultCwd: 'rel/dir' })).toThrow(
      'plugin-workspace: invalid config: defaultCwd: defaultCwd must be an absolute path',
    )
  })
})

describe('Workspace plugin', () => {
  it('reports the agent cwd and git state as runtime contexts', async () => {
    const root = setup()
    root.plugin(Workspace, { gitTimeoutMs: 20_000 })
    const agent = agentAt(repo)
    const { assembly, snapshot } = await view(root, agent)
    expect(assembly.contexts.map((c) => c.name)).toEqual([CWD_CONTEXT, GIT_CONTEXT])
    expect(snapshot).toContain(`cwd: ${repo}\n\ngit: branch trunk (no commits yet), clean`)
  })

  it('leaves workspace:git silently absent outside a repository and when git is missing', async () => {
    const root = setup()
    root.plugin(Workspace, { gitTimeoutMs: 20_000 })
    const outside = await view(root, agentAt(plain))
    expect(outside.snapshot).toContain(`cwd: ${plain}`)
    expect(outside.snapshot).not.toContain('git')

    const noGit = setup()
    noGit.plugin(Workspace, { gitBinary: join(base, 'missing-git') })
    const rendered = await view(noGit, agentAt(repo))
    expect(rendered.snapshot).not.toContain('git:')
    expect(rendered.snapshot).toContain(`cwd: ${repo}`)
  })

  it('falls back to defaultCwd, then process.cwd(), for agents without a cwd', async () => {
    const withDefault = setup()
    withDefault.plugin(Workspace, { defaultCwd: plain, git: false })
    expect((await view(withDefault, agentAt(undefined))).snapshot).toContain(`cwd: ${plain}`)
    const bare = setup()
    bare.plugin(Workspace, { git: false })
    expect((await view(bare)).snapshot).toContain(`cwd: ${process.cwd()}`)
  })

  it('provides {{cwd}} for the persona', async () => {
    const root = setup('You work in {{cwd}}.')
    root.plugin(Workspace, { git: false })
    expect((await view(root, agentAt(repo))).system).toContain(`You work in ${repo}.`)
  })

  it('does not override a cwd value another provider gave (agent-loop registers a global cwd)', async () => {
    const root = setup('In {{cwd}}.')
    root.systemPrompt.variable('cwd', () => '/from/agent-loop')
    root.plugin(Workspace, { git: false })
    expect((await view(root, agentAt(repo))).system).toContain('In /from/agent-loop.')
  })

  it('adds the paths section saying paths are capabilities, not authorization', async () => {
    const root = setup()
    root.plugin(Workspace, { git: false })
    const { assembly } = await view(root)
    const section = assembly.sections.find((s) => s.name === PATHS_SECTION)!
    expect(section.text).toContain('capabilities, not authorization')
    expect(section.text).toContain('confirm the working directory')
  })

  it('disposing the plugin removes contexts, section and variable from the next assembly', async () => {
    const root = setup()
    const fork = root.plugin(Workspace)
    expect((await view(root, agentAt(repo))).snapshot).not.toBe('')
    fork.dispose()
    const after = await view(root, agentAt(repo))
    expect(after.snapshot).toBe('')
    expect(after.assembly.sections.map((s) => s.name)).not.toContain(PATHS_SECTION)
    expect(after.assembly.variables).not.toHaveProperty('cwd')
  })

  it('loaded through an agent scope, it applies to that agent only', async () => {
    const root = setup()
    const agent = agentAt(repo)
    const other = agentAt(plain)
    createScope(root, agent).ctx.plugin(Workspace, { git: false })
    createScope(root, other)
    expect((await view(root, agent)).snapshot).toContain(`cwd: ${repo}`)
    expect((await view(root, other)).snapshot).toBe('')
    expect((await view(root)).snapshot).toBe('')
  })
})
