import { appendFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SessionStore } from '@bridle/session'
import { Context } from 'cordis'
import { describe, expect, it, vi } from 'vitest'
import { eventLine, headerLine, nodeFs, SessionJsonl, type FsLayer } from '../src/index.js'
import { captureWarnings, jsonlPlugin, replay, scriptedAppends, tempRoot, unsealed } from './helpers.js'

const appends = scriptedAppends(2)

/** An app whose store outlives reloads of the persistence plugin. */
function reloadableApp(root = tempRoot()) {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  const load = () => ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1_000_000 })
  return { ctx, root, load }
}

function fileText(root: string, id: string): string {
  return readFileSync(join(root, `${id}.jsonl`), 'utf8')
}

describe('binding sessions that are already live (plugin reload)', () => {
  it('adopts a matching log, truncates its torn tail (reporting it), and writes the live suffix', async () => {
    const warnings = captureWarnings()
    const { ctx, root, load } = reloadableApp()
    const first = load()
    const s = ctx.sessions.create('s1', { meta: { cwd: '/w' } })
    replay(s, appends.slice(0, 10))
    await ctx.sessions.flush(s)
    first.dispose()
    await vi.waitFor(() => expect(ctx.get('sessionPersistence')).toBeUndefined())
    replay(s, appends.slice(10, 20)) // not persisted: no backend
    appendFileSync(join(root, 's1.jsonl'), '{"type":"assistant/ch') // a torn tail from the old writer
    load()
    await ctx.sessions.flush(s)
    expect(unsealed(fileText(root, 's1'))).toBe(
      headerLine({ version: 0, id: 's1', createdAt: s.header.createdAt, cwd: '/w' }) + s.events.map(eventLine).join(''),
    )
    expect(warnings).toEqual([
      `session-jsonl: session "s1": discarded line 12 of "${join(root, 's1.jsonl')}" (a 21-byte unterminated line)`,
    ])
  })
})

describe('restarting the plugin while its final flush is still writing', () => {
  const seqsOf = (root: string) =>
    fileText(root, 's1')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l).seq as number)

  it('a config change restarts the plugin; the new instance waits for the old flush, so no seq is written twice', async () => {
    const { ctx, root } = reloadableApp()
    const fork = ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1_000_000 })
    const s = ctx.sessions.create('s1')
    replay(s, appends.slice(0, 3))
    await ctx.sessions.flush(s)
    replay(s, appends.slice(3, 12)) // pending in the old instance
    const before = ctx.get('sessionPersistence')
    fork.update({ root, writeBatchMaxDelayMs: 999_999 })
    expect(ctx.get('sessionPersistence')).not.toBe(before)
    replay(s, appends.slice(12, 15)) // admitted by the new instance
    await ctx.sessions.flush(s)
    expect(seqsOf(root)).toEqual(s.events.map((e) => e.seq))
  })

  it('dispose followed at once by a new load never duplicates or loses a seq', async () => {
    const { ctx, root } = reloadableApp()
    // The old instance writes slowly, so its final flush is still in flight while the new instance adopts.
    const slow: FsLayer = {
      ...nodeFs,
      async open(path, flags, mode) {
        const handle = await nodeFs.open(path, flags, mode)
        return {
          ...handle,
          read: (b, o, l, p) => handle.read(b, o, l, p),
          stat: () => handle.stat(),
          sync: () => handle.sync(),
          truncate: (n) => handle.truncate(n),
          close: () => handle.close(),
          async write(b, o, l, p) {
            await new Promise((r) => setTimeout(r, 30))
            return handle.write(b, o, l, p)
          },
        }
      },
    }
    // The new instance reads at once but opens files late, so without coordination it would append after the old
    // instance's final batch landed and repeat its seqs.
    const lateOpen: FsLayer = {
      ...nodeFs,
      async open(path, flags, mode) {
        await new Promise((r) => setTimeout(r, 80))
        return nodeFs.open(path, flags, mode)
      },
    }
    const first = ctx.plugin(jsonlPlugin(slow), { root, writeBatchMaxDelayMs: 1_000_000 })
    const s = ctx.sessions.create('s1')
    replay(s, appends.slice(0, 2))
    await ctx.sessions.flush(s)
    replay(s, appends.slice(2, 20))
    first.dispose()
    ctx.plugin(jsonlPlugin(lateOpen), { root, writeBatchMaxDelayMs: 1_000_000 })
    replay(s, appends.slice(20, 25))
    await ctx.sessions.flush(s)
    expect(seqsOf(root)).toEqual(s.events.map((e) => e.seq))
  })
})
