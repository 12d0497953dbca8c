/**
 * Issue 5 through the agent loop: read-file, workspace and environment plugins as a real app uses them. Load order
 * never changes request/header; a disposed plugin is gone from the next request; an agent-scope override shows only
 * in that agent's request; a resumed old session keeps the snapshot it saw, not today's values.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { GenerateOptions } from '@bridle/llm'
import { Environment } from '@bridle/plugin-environment'
import { ReadFile } from '@bridle/plugin-read-file'
import { Workspace } from '@bridle/plugin-workspace'
import type { SessionEvent } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import type { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { boot, callTools, say, user } from '../packages/agent-loop/tests/harness.js'

let repo: string
const dirs: string[] = []
beforeAll(async () => {
  repo = await realpath(await mkdtemp(join(tmpdir(), 'bridle-first-plugins-')))
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo })
  await writeFile(join(repo, 'package.json'), '{\n  "name": "demo-package"\n}\n')
})
afterAll(async () => {
  for (const d of [repo, ...dirs]) await rm(d, { recursive: true, force: true })
})

const PERSONA = 'You serve {{region}} from {{cwd}}.'
const prod = { environment: 'production', region: 'eu-west-1' }
const textOf = (m: GenerateOptions['messages'][number]) =>
  m.content.map((b) => (b.type === 'text' ? b.text : b.type)).join('|')
const headers = (events: readonly SessionEvent[]) =>
  events.filter((e) => e.type === 'request/header').map((e) => e.data as { header: unknown; reason: string })

const loaders: Record<string, (ctx: Context) => void> = {
  readFile: (ctx) => void ctx.plugin(ReadFile),
  workspace: (ctx) => void ctx.plugin(Workspace, { gitTimeoutMs: 20_000 }), // generous: the test machine is shared
  environment: (ctx) => void ctx.plugin(Environment, prod),
}

describe('issue 5 through the agent loop', () => {
  it('two load orders give identical request/header, system and tools; read_file works on the agent cwd', async () => {
    const run = async (order: string[]) => {
      const h = boot({ systemPrompt: { persona: PERSONA } })
      for (const name of order) loaders[name]!(h.ctx)
      const agent = h.agent({ cwd: repo })
      h.script.push(callTools({ id: 'c1', name: 'read_file', args: '{"path":"package.json"}' }), say('demo-package'))
      agent.followup(user('What is the package name?'))
      await agent.whenIdle()
      return { h, agent }
    }
    const a = await run(['readFile', 'workspace', 'environment'])
    const b = await run(['environment', 'workspace', 'readFile'])
    expect(JSON.stringify(headers(b.agent.session.events))).toBe(JSON.stringify(headers(a.agent.session.events)))
    for (const i of [0, 1]) {
      expect(b.h.requests[i]!.system).toBe(a.h.requests[i]!.system)
      expect(JSON.stringify(b.h.requests[i]!.tools)).toBe(JSON.stringify(a.h.requests[i]!.tools))
    }
    const step2 = a.h.requests[1]!
    expect(step2.system).toContain(`You serve eu-west-1 from ${repo}.`)
    expect(step2.system).toContain('Reading files: use the read_file tool.')
    expect(step2.system).toContain('capabilities, not authorization')
    expect(step2.tools!.map((t) => t.name)).toEqual(['read_file'])
    const texts = step2.messages.map(textOf)
    expect(texts[1]).toContain(
      `cwd: ${repo}\n\ngit: branch main (no commits yet), dirty: 1 untracked\n\nDeployment:\nenvironment: production\nregion: eu-west-1`,
    )
    const result = step2.messages.find((m) => m.content[0]?.type === 'tool-result')!
    expect(JSON.stringify(result.content)).toContain('demo-package')
  })

  it('disposing a plugin removes its contribution from the next request (header reason change)', async () => {
    const h = boot()
    const readFile = h.ctx.plugin(ReadFile)
    const agent = h.agent({ cwd: repo })
    h.script.push(say('one'), say('two'))
    agent.followup(user('p1'))
    await agent.whenIdle()
    readFile.dispose()
    agent.followup(user('p2'))
    await agent.whenIdle()
    expect(h.requests[0]!.tools!.map((t) => t.name)).toEqual(['read_file'])
    expect(h.requests[1]!.tools ?? []).toEqual([])
    expect(h.requests[1]!.system).not.toContain('read_file')
    expect(headers(agent.session.events).map((x) => x.reason)).toEqual(['initial', 'change'])
  })

  it('an agent-scope environment override shows only in that agent’s request', async () => {
    const h = boot({ systemPrompt: { persona: 'Region {{region}}.' } })
    h.ctx.plugin(Environment, prod)
    const canary = h.agent({
      setup: (agent) => void agent.ctx.plugin(Environment, { environment: 'canary', region: 'us-east-2' }),
    })
    const plain = h.agent()
    h.script.push(say('a'))
    canary.followup(user('hi'))
    await canary.whenIdle()
    h.script.push(say('b'))
    plain.followup(user('hi'))
    await plain.whenIdle()
    const [c, p] = h.requests as [GenerateOptions, GenerateOptions]
    expect(c.system).toContain('Region us-east-2.')
    expect(c.messages.map(textOf).join('\n')).toContain('environment: canary\nregion: us-east-2')
    expect(c.messages.map(textOf).join('\n')).not.toContain('eu-west-1')
    expect(p.system).toContain('Region eu-west-1.')
    expect(p.messages.map(textOf).join('\n')).toContain('environment: production\nregion: eu-west-1')
    expect(p.messages.map(textOf).join('\n')).not.toContain('us-east-2')
  })

  it('a resumed old session still shows the old snapshot, then records the new values as a new snapshot', async () => {
    const root = await mkdtemp(join(tmpdir(), 'bridle-first-plugins-resume-'))
    dirs.push(root)
    const first = boot()
    first.ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
    first.ctx.plugin(Environment, prod)
    first.ctx.plugin(Workspace, { git: false })
    await new Promise((r) => setTimeout(r, 0))
    const a = first.agent({ sessionId: 'week-old', cwd: repo })
    first.script.push(say('one'))
    a.followup(user('p1'))
    await a.whenIdle()
    await a.dispose()

    const second = boot()
    second.ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
    second.ctx.plugin(Environment, { environment: 'production', region: 'ap-south-1' })
    second.ctx.plugin(Workspace, { git: false })
    await new Promise((r) => setTimeout(r, 0))
    const b = await second.ctx.agentLoop.resume('week-old', { provider: 'mock', model: 'm1' })
    second.script.push(say('two'))
    b.followup(user('p2'))
    await b.whenIdle()
    const texts = second.requests[0]!.messages.map(textOf)
    const snapshots = texts.filter((t) => t.startsWith('Current runtime context.'))
    expect(snapshots).toHaveLength(2)
    expect(snapshots[0]).toContain('region: eu-west-1')
    expect(snapshots[0]).not.toContain('ap-south-1')
    expect(snapshots[1]).toContain('region: ap-south-1')
    expect(texts.indexOf(snapshots[0]!)).toBeLessThan(texts.indexOf('p2'))
  })
})
