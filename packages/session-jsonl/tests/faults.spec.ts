import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { eventLine } from '../src/index.js'
import { SUFFIX_LENGTH } from '../src/checksum.js'
import { FaultyFs, type Fault } from './fixtures/faulty-fs.js'
import { captureWarnings, makeApp, replay, scriptedAppends, unsealed } from './helpers.js'

const appends = scriptedAppends(2)

/** The seqs stored in a log file, in file order. */
function storedSeqs(path: string): number[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line).seq as number)
}

describe('fault injection', () => {
  it('a failed fsync is rolled back and reported; the next flush retries without duplicates', async () => {
    const fs = new FaultyFs()
    const { ctx, persistence } = makeApp({ writeBatchMaxDelayMs: 1_000_000 }, fs)
    const s = ctx.sessions.create('s1')
    replay(s, appends.slice(0, 3))
    await ctx.sessions.flush(s)
    const path = persistence.locate(s.header).path
    replay(s, appends.slice(3, 8))
    fs.plan({ op: 'sync', path: /s1\.jsonl$/ })
    await expect(ctx.sessions.flush(s)).rejects.toThrow(`injected sync failure on ${path}`)
    expect(storedSeqs(path)).toEqual([0, 1, 2])
    await ctx.sessions.flush(s)
    expect(storedSeqs(path)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect(unsealed(readFileSync(path, 'utf8')).endsWith(s.events.map(eventLine).slice(3).join(''))).toBe(true)
  })

  it('a failed partial write is truncated back; a failed publication leaves no file', async () => {
    const fs = new FaultyFs().plan({ op: 'write', partial: 7 })
    const { ctx, persistence } = makeApp({ writeBatchMaxDelayMs: 1_000_000 }, fs)
    const s = ctx.sessions.create('s1')
    replay(s, appends.slice(0, 2))
    await expect(ctx.sessions.flush(s)).rejects.toThrow('injected write failure')
    await expect(persistence.inspect('s1')).resolves.toMatchObject({ events: s.events }) // live view
    expect(await persistence.list()).toEqual([])
    await ctx.sessions.flush(s)
    const path = persistence.locate(s.header).path
    expect(storedSeqs(path)).toEqual([0, 1])
    replay(s, appends.slice(2, 5))
    fs.plan({ op: 'write', partial: 5, path: /s1\.jsonl$/ })
    await expect(ctx.sessions.flush(s)).rejects.toThrow('injected write failure')
    expect(storedSeqs(path)).toEqual([0, 1])
    await ctx.sessions.flush(s)
    expect(storedSeqs(path)).toEqual([0, 1, 2, 3, 4])
  })

  it('a failed rollback poisons the session; a reload keeps the complete lines of the partial batch', async () => {
    const fs = new FaultyFs()
    const { ctx, persistence, root } = makeApp({ writeBatchMaxDelayMs: 1_000_000 }, fs)
    const s = ctx.sessions.create('s1')
    replay(s, appends.slice(0, 2))
    await ctx.sessions.flush(s)
    const path = persistence.locate(s.header).path
    replay(s, appends.slice(2, 6))
    // two sealed lines (each its plain JSON plus the checksum field) and a fragment
    const partial =
      s.events.slice(2, 4).reduce((sum, e) => sum + Buffer.byteLength(eventLine(e)) + SUFFIX_LENGTH, 0) + 10
    fs.plan({ op: 'write', partial, path: /s1\.jsonl$/ }, { op: 'truncate', path: /s1\.jsonl$/ })
    const error = await ctx.sessions.flush(s).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AggregateError)
    expect((error as Error).message).toBe(`failed to roll back append to "${path}"`)
    await expect(ctx.sessions.flush(s)).rejects.toBe(error)
    s.append('turn/start', { turn: 99 })
    await expect(ctx.sessions.flush(s)).rejects.toBe(error)
    // Reload elsewhere: the two complete lines are genuine events; the fragment is a torn tail.
    const other = makeApp({}, undefined, root)
    const { events } = await other.persistence.inspect('s1')
    expect(events.slice(0, 4)).toEqual(s.events.slice(0, 4))
  })

  it('P6: any sequence of write/fsync failures and retries stores seqs 0..n-1 exactly once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            take: fc.integer({ min: 1, max: 6 }),
            fault: fc.option(
              fc.oneof(
                fc.record({ op: fc.constant('write' as const), partial: fc.integer({ min: 0, max: 400 }) }),
                fc.record({ op: fc.constant('sync' as const) }),
                fc.record({ op: fc.constant('link' as const) }),
                fc.record({ op: fc.constant('syncDir' as const) }),
              ),
              { nil: undefined },
            ),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (plan) => {
          const fs = new FaultyFs()
          const { ctx, persistence } = makeApp({ writeBatchMaxDelayMs: 1_000_000 }, fs)
          const s = ctx.sessions.create('p6')
          let next = 0
          for (const round of plan) {
            replay(s, appends.slice(next, next + round.take))
            next = Math.min(appends.length, next + round.take)
            if (round.fault) fs.plan(round.fault as Fault)
            await ctx.sessions.flush(s).catch(() => undefined)
          }
          fs.faults.length = 0
          await ctx.sessions.flush(s)
          const path = persistence.locate(s.header).path
          expect(storedSeqs(path)).toEqual(s.events.map((e) => e.seq))
          const loaded = await persistence.inspect('p6')
          expect(loaded.events).toEqual(s.events)
        },
      ),
      { numRuns: 40 },
    )
  })
})

describe('plugin teardown', () => {
  it('dispose flushes every session and aggregates failures', async () => {
    const fs = new FaultyFs()
    const { ctx, persistence } = makeApp({ writeBatchMaxDelayMs: 1_000_000 }, fs)
    const a = ctx.sessions.create('a')
    const b = ctx.sessions.create('b')
    replay(a, appends.slice(0, 2))
    replay(b, appends.slice(0, 2))
    fs.plan({ op: 'link', path: /b\.jsonl$/ })
    const backend = (persistence as unknown as { backend: { dispose(): Promise<void> } }).backend
    const error = await backend.dispose().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AggregateError)
    expect((error as Error).message).toBe('session-jsonl dispose failed')
    expect((error as AggregateError).errors.map(String)).toEqual([expect.stringContaining('injected link failure')])
    expect(storedSeqs(persistence.locate(a.header).path)).toEqual([0, 1])
    // Admission has stopped: later events are not queued.
    a.append('turn/start', { turn: 9 })
    await ctx.sessions.flush(a)
    expect(storedSeqs(persistence.locate(a.header).path)).toEqual([0, 1])
  })
})

describe('retirement', () => {
  it('a failed retirement flush is logged, and the state is released', async () => {
    const warnings = captureWarnings()
    const fs = new FaultyFs().plan({ op: 'link' })
    const { ctx, persistence } = makeApp({ writeBatchMaxDelayMs: 1_000_000 }, fs)
    const fork = ctx.plugin({
      inject: ['sessions'],
      apply: (c: typeof ctx) => {
        const s = c.sessions.create('gone')
        replay(s, appends.slice(0, 2))
      },
    })
    fork.dispose()
    await expect(persistence.load('gone')).rejects.toThrow('session "gone" not found') // waits for the retirement
    expect(warnings).toEqual([
      expect.stringMatching(/^session-jsonl: session "gone" retirement failed: Error: injected link failure on /),
    ])
  })
})
