/**
 * Live tool lists: `notifications/tools/list_changed` re-lists and applies only the difference, each difference as
 * its own effect. Property-tested on the registry (any sequence of listings), then end to end with the control
 * server changing its list at run time.
 */
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { McpServer, toListedTools, type ListedTool } from '../src/index.js'
import { ToolSet } from '../src/tool-set.js'
import { boot, captureLogs, rows, run, textOf } from './helpers.js'

// real child processes on a shared machine: starting one can take seconds
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

captureLogs()
const SEED = 20_260_919

/** A raw MCP tool: one of a few names, each in one of a few versions. */
const rawTool = fc.record({
  name: fc.constantFrom('read', 'write', 'list.dir', 'search', 'x'.repeat(70)),
  version: fc.constantFrom(1, 2, 3),
})
const listing = fc.uniqueArray(rawTool, { selector: (t) => t.name, maxLength: 5 }).map((tools) =>
  tools.map(({ name, version }) => ({
    name,
    description: `v${version}`,
    inputSchema: { type: 'object', properties: { [`p${version}`]: { type: 'string' } } },
  })),
)

describe('applying listings to the registry', () => {
  it('after any sequence of listings the registry holds exactly the last one; each difference is one effect per registration or removal', () => {
    fc.assert(
      fc.property(fc.array(listing, { minLength: 1, maxLength: 8 }), (listings) => {
        const { ctx, rec } = boot()
        const set = new ToolSet(ctx, async () => 'unused')
        let previous: readonly ListedTool[] = []
        for (const raw of listings) {
          const { tools } = toListedTools('srv', { exclude: [] }, raw)
          const before = { ...rec.counts }
          const diff = set.apply(tools)
          const old = new Map(previous.map((t) => [t.name, t.fingerprint]))
          const now = new Map(tools.map((t) => [t.name, t.fingerprint]))
          expect(diff.added).toEqual([...now.keys()].filter((n) => !old.has(n)).sort())
          expect(diff.removed).toEqual([...old.keys()].filter((n) => !now.has(n)).sort())
          expect(diff.changed).toEqual([...now.keys()].filter((n) => old.has(n) && old.get(n) !== now.get(n)).sort())
          // a changed tool is re-registered: its old effect is disposed, then the new one applied
          const effects = diff.added.length + diff.removed.length + 2 * diff.changed.length
          expect(rec.counts.tools - before.tools).toBe(effects)
          expect(rec.counts.systemPrompt - before.systemPrompt).toBe(effects)
          expect(
            ctx.tools
              .schemas()
              .map((s) => JSON.stringify(s))
              .sort(),
          ).toEqual(
            tools
              .map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }))
              .sort(),
          )
          previous = tools
        }
      }),
      { seed: SEED, numRuns: 60 },
    )
  })

  it('the tools chosen from a listing never depend on the order the server listed them in', () => {
    const clash = fc.uniqueArray(fc.constantFrom('a.b', 'a_b', 'a-b', 'a b', 'c'), { maxLength: 5 })
    fc.assert(
      fc.property(clash, fc.infiniteStream(fc.nat()), (names, seeds) => {
        const raw = names.map((name, i) => ({ name, description: `#${i}`, inputSchema: { type: 'object' } }))
        const shuffled = [...raw]
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = (seeds.next().value as number) % (i + 1)
          ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
        }
        expect(toListedTools('s', { exclude: [] }, shuffled)).toEqual(toListedTools('s', { exclude: [] }, raw))
      }),
      { seed: SEED, numRuns: 100 },
    )
  })
})

describe('a server that changes its tool list at run time', () => {
  it('re-lists on list_changed and applies only the difference, one system-prompt/change per effect', async () => {
    const { ctx, rec } = boot()
    const fork = ctx.plugin(McpServer, {
      name: 'ctl',
      ...rows.control({ tools: [{ name: 'alpha' }, { name: 'beta' }, { name: 'gamma' }] }),
    })
    const ready = await rec.status('ctl', 'ready')
    expect(ready.tools).toEqual(expect.arrayContaining(['ctl__alpha', 'ctl__beta', 'ctl__gamma']))
    const before = { ...rec.counts }
    const from = rec.updates.length

    await run(ctx, 'ctl__fixture_mutate', {
      add: [{ name: 'delta' }, { name: 'epsilon', description: 'new tool' }],
      remove: ['alpha'],
      change: [{ name: 'beta', description: 'beta, second edition' }, { name: 'gamma' }],
    })
    const update = await rec.update('ctl', undefined, from)
    // gamma was "changed" to exactly what it was: no difference, no effect
    expect(update).toEqual({
      server: 'ctl',
      added: ['ctl__delta', 'ctl__epsilon'],
      removed: ['ctl__alpha'],
      changed: ['ctl__beta'],
    })
    expect(rec.counts.tools - before.tools).toBe(2 + 1 + 2)
    expect(rec.counts.systemPrompt - before.systemPrompt).toBe(2 + 1 + 2)
    const names = ctx.tools.schemas().map((s) => s.name)
    expect(names).toEqual(expect.arrayContaining(['ctl__beta', 'ctl__delta', 'ctl__epsilon', 'ctl__gamma']))
    expect(names).not.toContain('ctl__alpha')
    expect(ctx.tools.schemas().find((s) => s.name === 'ctl__beta')!.description).toBe('beta, second edition')
    expect(textOf(await run(ctx, 'ctl__delta', { n: 1 }))).toBe('delta ran with {"n":1}')

    // a list_changed that changes nothing applies nothing
    const quiet = { ...rec.counts }
    await run(ctx, 'ctl__fixture_mutate', { change: [{ name: 'gamma' }] })
    // a second mutation proves the first listing was applied (notifications are handled in order)
    await run(ctx, 'ctl__fixture_mutate', { remove: ['delta'] })
    await rec.update('ctl', (u) => u.removed.includes('ctl__delta'), from + 1)
    expect(rec.counts.tools - quiet.tools).toBe(1)
    expect(rec.updates.slice(from + 1)).toEqual([{ server: 'ctl', added: [], removed: ['ctl__delta'], changed: [] }])
    fork.dispose()
    await rec.status('ctl', 'closed')
  })
})
