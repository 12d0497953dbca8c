/**
 * MCP servers as seen by the agent loop's requests: the request's tools are a function of which servers are up,
 * never of the order they (or the core plugins) were loaded in, nor of the order a server lists its tools; a list
 * change and a killed server show in the very next request, and a server that is back brings its tools back.
 */
import type { GenerateOptions } from '@bridle/llm'
import { Mcp, McpServer } from '@bridle/plugin-mcp'
import type { Context } from 'cordis'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { captureLogs, isAlive, record, rows, run, tempDir } from '../plugins/mcp/tests/helpers.js'
import { bootApp, corePlugins, say, tick, user, type PluginLoad } from './provability-support.js'

// real child processes on a shared machine: starting one can take seconds
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

captureLogs()
const SEED = 7_190

const toolsOf = (request: GenerateOptions) => JSON.stringify(request.tools ?? [])
const namesOf = (request: GenerateOptions) => (request.tools ?? []).map((t) => t.name)

describe('random start orders', () => {
  it('servers and core plugins loaded in any order, tools listed in any order: byte-identical request tools', async () => {
    const root = tempDir()
    const seen = new Set<string>()
    const forks: { dispose(): unknown }[] = []
    const server = (name: string, row: object): PluginLoad => ({
      name,
      load: (ctx) => void forks.push(ctx.plugin(McpServer, { name, ...row })),
    })
    const servers = (seed: number): PluginLoad[] => [
      server('everything', rows.everything()),
      server('fs', rows.filesystem(root)),
      server('control', rows.control({ tools: [{ name: 'zeta' }, { name: 'alpha' }], seed })),
    ]
    await fc.assert(
      fc.asyncProperty(fc.nat(1_000_000), fc.nat(1_000_000), async (orderSeed, listSeed) => {
        const loads = [...corePlugins(tempDir()), ...servers(listSeed)]
        const order = fc.sample(fc.shuffledSubarray(loads, { minLength: loads.length, maxLength: loads.length }), {
          seed: orderSeed,
          numRuns: 1,
        })[0]!
        const app = await bootApp(order)
        // cordis tasks: every server's first connection has settled
        await app.ctx.lifecycle.flush()
        const agent = app.agent()
        app.script.push(say('ok'))
        agent.followup(user('hi'))
        await agent.whenIdle()
        const header = agent.session.events.find((e) => e.type === 'request/header')!
        seen.add(`${toolsOf(app.requests[0]!)}\n${JSON.stringify((header.data as { header: unknown }).header)}`)
        expect(namesOf(app.requests[0]!)).toEqual(
          expect.arrayContaining(['control__alpha', 'everything__echo', 'fs__read_text_file']),
        )
        await agent.dispose()
        forks.splice(0).forEach((fork) => fork.dispose())
        await app.ctx.lifecycle.flush()
      }),
      { seed: SEED, numRuns: 3 },
    )
    expect(seen.size).toBe(1)
  })
})

/** An app with one control server; each `ask` runs one turn and returns the request it sent. */
async function appWithControl(options: Parameters<typeof rows.control>[0], extra: Record<string, unknown> = {}) {
  const app = await bootApp([...corePlugins(tempDir())])
  const rec = record(app.ctx)
  const fork = app.ctx.plugin(McpServer, { name: 'ctl', ...rows.control(options), ...extra })
  await app.ctx.lifecycle.flush()
  const agent = app.agent()
  const ask = async (text: string) => {
    app.script.push(say('ok'))
    agent.followup(user(text))
    await agent.whenIdle()
    return app.requests.at(-1)!
  }
  const headers = () =>
    agent.session.events.filter((e) => e.type === 'request/header').map((e) => (e.data as { reason: string }).reason)
  return { app, rec, fork, agent, ask, headers }
}

const mine = (names: string[]) => names.filter((n) => !n.includes('__fixture_'))

describe('what the next request sees', () => {
  it('a list change: the next request has the new list, and the header records the change', async () => {
    const { app, rec, fork, ask, headers } = await appWithControl({ tools: [{ name: 'alpha' }, { name: 'beta' }] })
    expect(mine(namesOf(await ask('one')))).toEqual(['ctl__alpha', 'ctl__beta'])
    await run(app.ctx as Context, 'ctl__fixture_mutate', { add: [{ name: 'gamma' }], remove: ['alpha'] })
    await rec.update('ctl', (u) => u.added.includes('ctl__gamma'))
    expect(mine(namesOf(await ask('two')))).toEqual(['ctl__beta', 'ctl__gamma'])
    expect(headers()).toEqual(['initial', 'change'])
    fork.dispose()
    await app.ctx.lifecycle.flush()
  })

  it('a killed server: its tools are gone from the next request and back in the one after it reconnected', async () => {
    const { app, rec, fork, ask } = await appWithControl(
      { tools: [{ name: 'alpha' }] },
      { reconnect: { initialDelayMs: 20 } },
    )
    const first = rec.statuses.find((s) => s.state === 'ready')!
    expect(mine(namesOf(await ask('one')))).toEqual(['ctl__alpha'])
    const mark = rec.statuses.length
    process.kill(first.pid!, 'SIGKILL')
    await rec.status('ctl', 'failed', mark)
    expect(namesOf(await ask('two'))).toEqual([])
    await rec.status('ctl', 'ready', mark)
    const back = await ask('three')
    expect(mine(namesOf(back))).toEqual(['ctl__alpha'])
    expect(toolsOf(back)).toBe(toolsOf(app.requests[0]!))
    fork.dispose()
    await app.ctx.lifecycle.flush()
    await tick()
  })
})

describe('per agent', () => {
  it('loaded through agent.ctx, the servers and their tools are that agent’s only, and go with it', async () => {
    const app = await bootApp([...corePlugins(tempDir())])
    const rec = record(app.ctx)
    const scoped = app.agent({
      setup: (agent) => void agent.ctx.plugin(Mcp, { servers: { ctl: rows.control({ tools: [{ name: 'alpha' }] }) } }),
    })
    const plain = app.agent()
    await app.ctx.lifecycle.flush()
    const ask = async (agent: typeof plain) => {
      app.script.push(say('ok'))
      agent.followup(user('hi'))
      await agent.whenIdle()
      return app.requests.at(-1)!
    }
    expect(mine(namesOf(await ask(scoped)))).toEqual(['ctl__alpha'])
    expect(namesOf(await ask(plain))).toEqual([])
    expect(app.ctx.tools.schemas()).toEqual([])
    const ready = rec.statuses.find((s) => s.state === 'ready')!
    await scoped.dispose()
    await app.ctx.lifecycle.flush()
    expect(rec.statuses.at(-1)).toMatchObject({ server: 'ctl', state: 'closed' })
    expect(isAlive(ready.pid!)).toBe(false)
  })
})
