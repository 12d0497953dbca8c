/**
 * The kill probe: children writing a real session are killed with SIGKILL at
 * random moments. Each log must reload to its complete lines plus closers, keep every event the child reported as
 * flushed, close every started tool call as TOOL_OUTCOME_UNKNOWN, and report a torn last line; a kill before
 * publication leaves no session file, at most a temp file.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOOL_OUTCOME_UNKNOWN } from '@bridle/session'
import { expect } from 'vitest'
import { eventLine } from '../../src/index.js'
import { noSyncFs } from '../fixtures/faulty-fs.js'
import { scriptedAppends } from '../fixtures/script.js'
import { makeApp, unsealed } from '../helpers.js'
import { balanced, completeLines, rng, runChild } from './run-child.js'

export interface KillFigures {
  /** Children killed with SIGKILL while writing. */
  readonly kills: number
  /**
   * Children that finished before the signal landed (a starved parent reads their progress late); their complete
   * logs are checked the same way.
   */
  readonly finishedFirst: number
  /** Kills that came before the first publication (no session file). */
  readonly beforePublication: number
  /** Kills that left an unterminated last line, reported as a recovered torn tail. */
  readonly tornTails: number
  /** Events the children reported flushed before they were killed; every one was found on reload. */
  readonly flushedEvents: number
  /** Tool bodies started before a kill; each call was durable. */
  readonly toolsStarted: number
}

/** Runs `runs` kills, `parallel` children at a time. `warnings` is the caller's capture of session-jsonl warnings. */
export async function killProbe(options: {
  bundle: string
  seed: number
  runs: number
  turns: number
  parallel: number
  warnings: string[]
}): Promise<KillFigures> {
  const { bundle, seed, runs, turns, parallel, warnings } = options
  const random = rng(seed)
  const script = scriptedAppends(turns)
  // Kill points spread over the first 60% of the run, so the child is still writing when the signal lands.
  const killWindow = Math.max(1, Math.floor(script.filter((a) => a.checkpointBefore).length * 0.6))
  const plans = Array.from({ length: runs }, (_, i) => ({
    i,
    flushes: i % 5 === 0 ? 0 : 1 + Math.floor(random() * killWindow),
    extraMs: i % 5 === 0 ? 40 + Math.floor(random() * 200) : Math.floor(random() * 8),
    delay: [1, 2, 5][i % 3]!,
  }))
  const figures = { kills: 0, finishedFirst: 0, beforePublication: 0, tornTails: 0, flushedEvents: 0, toolsStarted: 0 }
  const verify = async ({ i, flushes, extraMs, delay }: (typeof plans)[number]) => {
    const root = join(mkdtempSync(join(tmpdir(), 'bridle-kill-')), 'sessions')
    const run = await runChild(bundle, root, turns, delay, { flushes, extraMs })
    const context = `run ${i} (flushes ${flushes}, +${extraMs}ms, delay ${delay})`
    const done = run.lines.find((l) => l.startsWith('done '))
    if (run.signal === 'SIGKILL') figures.kills++
    else {
      expect(done, `${context}: the child exited without being killed or finishing`).toBeDefined()
      figures.finishedFirst++
    }
    const flushed = Math.max(
      0,
      ...run.lines.filter((l) => l.startsWith('flushed ') || l.startsWith('done ')).map((l) => Number(l.split(' ')[1])),
    )
    const started = run.lines.filter((l) => l.startsWith('tool-started ')).map((l) => Number(l.split(' ')[1]))
    figures.flushedEvents += flushed
    figures.toolsStarted += started.length
    const path = join(root, 'crash.jsonl')
    const app = makeApp({}, noSyncFs, root)

    if (!existsSync(path)) {
      // P7: killed before publication: no session file, at most a temp file, and nothing was reported flushed.
      expect(flushed, context).toBe(0)
      if (existsSync(root))
        for (const name of readdirSync(root)) expect(name, context).toMatch(/^crash\.jsonl\.[0-9a-f]{12}\.tmp$/)
      expect(await app.persistence.list(), context).toEqual([])
      figures.beforePublication++
      return
    }
    const bytes = readFileSync(path)
    const { events: stored, ends, headerEnd } = completeLines(bytes)
    const expected = balanced(stored)
    // P3: every event the child reported flushed is present.
    expect(stored.length, context).toBeGreaterThanOrEqual(flushed)
    // The stored prefix is exactly what the child appended, in order.
    stored.forEach((event, seq) => {
      const appended = script[seq]!
      expect({ type: event.type, seq: event.seq, data: event.data }, `${context} seq ${seq}`).toEqual({
        type: appended.type,
        seq,
        data: appended.data,
      })
    })
    const inspected = await app.persistence.inspect('crash')
    expect(inspected.events, context).toEqual(expected)
    const fragment = bytes.length - (ends.at(-1) ?? headerEnd)
    expect(inspected.recovery?.fragmentBytes ?? 0, context).toBe(fragment)
    // P9: a started tool body's call is durable; if its result was lost, the closer says the outcome is unknown.
    for (const callSeq of started) {
      expect(stored.length, context).toBeGreaterThan(callSeq)
      const result = expected.find((e) => e.type === 'tool/result' && e.sourceEventSeqs?.[0] === callSeq)
      if (result !== undefined && result.seq >= stored.length) {
        expect((result.data as { error?: { code: string } }).error?.code, context).toBe(TOOL_OUTCOME_UNKNOWN)
      }
    }
    const warned = warnings.filter((w) => w.includes(`"${path}"`)).length
    const loaded = await app.persistence.load('crash')
    expect(loaded.events, context).toEqual(expected)
    expect(warnings.filter((w) => w.includes(`"${path}"`)).length - warned, context).toBe(fragment > 0 ? 1 : 0)
    if (fragment > 0) figures.tornTails++
    const header = unsealed(bytes.subarray(0, headerEnd).toString('utf8'))
    expect(unsealed(readFileSync(path, 'utf8')), context).toBe(header + expected.map(eventLine).join(''))
  }
  // A few children at a time: they mostly wait on fsync and process start-up.
  for (let at = 0; at < plans.length; at += parallel) await Promise.all(plans.slice(at, at + parallel).map(verify))
  return figures
}
