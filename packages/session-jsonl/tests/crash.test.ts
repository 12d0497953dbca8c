/**
 * Crash safety with real processes (persistence.md §13). A child process writes a real session through the plugin;
 *
 * 1. after a complete run, copies of its file truncated at hundreds of byte offsets (every event boundary ±1, the
 *    first byte of every line, plus random offsets) must each reload to exactly the complete lines plus closers
 *    (P1), never an error (P2), and repair idempotently and convergently (P8);
 * 2. children killed with SIGKILL at random moments must reload the same way, keep every event they reported as
 *    flushed (P3), and close every started tool call as TOOL_OUTCOME_UNKNOWN (P9); a kill before publication leaves
 *    no session file, at most a temp file (P7).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { interruptedTurnClosers, KNOWN_SESSION_EVENT_TYPES, TOOL_OUTCOME_UNKNOWN, type SessionEvent } from '@bridle/session'
import { beforeAll, describe, expect, it } from 'vitest'
import { eventLine } from '../src/index.js'
import { buildChild } from './crash/build-child.js'
import { noSyncFs } from './fixtures/faulty-fs.js'
import { scriptedAppends } from './fixtures/script.js'
import { makeApp } from './helpers.js'

let bundle: string
beforeAll(async () => {
  bundle = await buildChild()
}, 120_000)

interface ChildRun {
  readonly lines: string[]
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** Runs the child; with `killAt`, sends SIGKILL after that many `flushed` lines plus `extraMs` (or `afterMs` from spawn). */
function runChild(root: string, turns: number, delayMs: number, killAt?: { flushes: number; extraMs: number }): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, root, String(turns), String(delayMs)], { stdio: ['ignore', 'pipe', 'pipe'] })
    const lines: string[] = []
    let buffer = ''
    let stderr = ''
    let flushes = 0
    let armed = false
    const kill = (ms: number) => {
      if (armed) return
      armed = true
      setTimeout(() => child.kill('SIGKILL'), ms)
    }
    if (killAt !== undefined && killAt.flushes === 0) kill(killAt.extraMs)
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8')
      let newline: number
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        lines.push(line)
        if (line.startsWith('flushed ') && killAt !== undefined && ++flushes >= killAt.flushes) kill(killAt.extraMs)
      }
    })
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (code !== null && code !== 0) reject(new Error(`child exited ${code}: ${stderr}`))
      else resolve({ lines, code, signal })
    })
  })
}

/** The events of the complete lines after the header, and the byte offset just past each of them. */
function completeLines(bytes: Buffer): { events: SessionEvent[]; ends: number[]; headerEnd: number } {
  const headerEnd = bytes.indexOf(0x0a) + 1
  const events: SessionEvent[] = []
  const ends: number[] = []
  let start = headerEnd
  for (let nl = bytes.indexOf(0x0a, start); nl >= 0; nl = bytes.indexOf(0x0a, start)) {
    events.push(JSON.parse(bytes.toString('utf8', start, nl)))
    ends.push(nl + 1)
    start = nl + 1
  }
  return { events, ends, headerEnd }
}

function balanced(events: SessionEvent[]): SessionEvent[] {
  return [...events, ...(interruptedTurnClosers(events) as SessionEvent[])]
}

/** A deterministic PRNG so a failing offset or kill point can be reproduced from the printed seed. */
function rng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

const seed = Number(process.env.BRIDLE_CRASH_SEED ?? Date.now() % 1_000_000)

describe(`crash recovery with real processes (seed ${seed})`, () => {
  it('every truncation of a real child-written log reloads to its complete lines plus closers', async () => {
    const childRoot = join(mkdtempSync(join(tmpdir(), 'bridle-crash-')), 'sessions')
    const run = await runChild(childRoot, 3, 1)
    expect(run.lines.at(-1)).toMatch(/^done \d+$/)
    const full = readFileSync(join(childRoot, 'crash.jsonl'))
    const { events: all, ends, headerEnd } = completeLines(full)
    expect(all).toHaveLength(Number(run.lines.at(-1)!.split(' ')[1]))
    // Every known event type occurs, so its boundaries are among the offsets below.
    expect(new Set(all.map((e) => e.type))).toEqual(new Set(KNOWN_SESSION_EVENT_TYPES))

    const random = rng(seed)
    const offsets = new Set<number>([headerEnd, full.length])
    for (const end of ends) for (const k of [end - 1, end, end + 1]) if (k >= headerEnd && k <= full.length) offsets.add(k)
    while (offsets.size < Math.max(220, ends.length * 3 + 30)) offsets.add(headerEnd + Math.floor(random() * (full.length - headerEnd + 1)))
    expect(offsets.size).toBeGreaterThanOrEqual(200)

    const { persistence, root } = makeApp({}, noSyncFs)
    const { mkdirSync } = await import('node:fs')
    mkdirSync(root, { recursive: true })
    const path = join(root, 'crash.jsonl')
    const header = full.subarray(0, headerEnd).toString('utf8')
    let repairsChecked = 0
    for (const k of [...offsets].sort((a, b) => a - b)) {
      const image = full.subarray(0, k)
      writeFileSync(path, image)
      const complete = ends.filter((end) => end <= k).length
      const expected = balanced(all.slice(0, complete))
      const inspected = await persistence.inspect('crash')
      expect(inspected.events, `offset ${k}`).toEqual(expected)
      expect(readFileSync(path).equals(image), `inspect wrote at offset ${k}`).toBe(true)
      const loaded = await persistence.load('crash')
      expect(loaded.events, `offset ${k}`).toEqual(expected)
      const repaired = readFileSync(path)
      expect(repaired.toString('utf8')).toBe(header + expected.map(eventLine).join(''))
      await persistence.load('crash')
      expect(readFileSync(path).equals(repaired), `second load changed the file at offset ${k}`).toBe(true)
      // P8: a crash at any byte of the repair (inside the truncated tail or the closer append) converges.
      const committed = complete === 0 ? headerEnd : ends[complete - 1]!
      if (expected.length > complete && k % 5 === 0) {
        for (const j of [committed, committed + 1, Math.floor((committed + repaired.length) / 2), repaired.length - 1]) {
          writeFileSync(path, j <= k ? Buffer.concat([full.subarray(0, committed), repaired.subarray(committed, Math.max(committed, j))]) : repaired.subarray(0, j))
          await persistence.load('crash')
          expect(readFileSync(path).equals(repaired), `repair crash at ${j} (offset ${k}) did not converge`).toBe(true)
        }
        repairsChecked++
      }
    }
    expect(repairsChecked).toBeGreaterThan(10)
  }, 120_000)

  it('children killed with SIGKILL at random moments reload to the committed prefix and keep every flushed event', async () => {
    const random = rng(seed + 1)
    const turns = 20
    const script = scriptedAppends(turns)
    const runs = 10
    const plans = Array.from({ length: runs }, (_, i) => ({
      i,
      flushes: i < 2 ? 0 : 1 + Math.floor(random() * 40),
      extraMs: i < 2 ? 40 + Math.floor(random() * 200) : Math.floor(random() * 8),
      delay: [1, 2, 5][i % 3]!,
    }))
    const verify = async ({ i, flushes, extraMs, delay }: (typeof plans)[number]) => {
      const root = join(mkdtempSync(join(tmpdir(), 'bridle-kill-')), 'sessions')
      const run = await runChild(root, turns, delay, { flushes, extraMs })
      const context = `run ${i} (flushes ${flushes}, +${extraMs}ms, delay ${delay})`
      expect(run.signal, `${context}: the child finished before it was killed`).toBe('SIGKILL')
      const flushed = Math.max(0, ...run.lines.filter((l) => l.startsWith('flushed ')).map((l) => Number(l.split(' ')[1])))
      const started = run.lines.filter((l) => l.startsWith('tool-started ')).map((l) => Number(l.split(' ')[1]))
      const path = join(root, 'crash.jsonl')
      const app = makeApp({}, noSyncFs, root)

      if (!existsSync(path)) {
        // P7: killed before publication: no session file, at most a temp file, and nothing was reported flushed.
        expect(flushed, context).toBe(0)
        if (existsSync(root)) for (const name of readdirSync(root)) expect(name, context).toMatch(/^crash\.jsonl\.[0-9a-f]{12}\.tmp$/)
        expect(await app.persistence.list(), context).toEqual([])
        return
      }
      const bytes = readFileSync(path)
      const { events: stored, headerEnd } = completeLines(bytes)
      const expected = balanced(stored)
      // P3: every event the child reported flushed is present.
      expect(stored.length, context).toBeGreaterThanOrEqual(flushed)
      // The stored prefix is exactly what the child appended, in order.
      stored.forEach((event, seq) => {
        const appended = script[seq]!
        expect({ type: event.type, seq: event.seq, data: event.data }, `${context} seq ${seq}`).toEqual({ type: appended.type, seq, data: appended.data })
      })
      const inspected = await app.persistence.inspect('crash')
      expect(inspected.events, context).toEqual(expected)
      // P9: a started tool body's call is durable; if its result was lost, the closer says the outcome is unknown.
      for (const callSeq of started) {
        expect(stored.length, context).toBeGreaterThan(callSeq)
        const result = expected.find((e) => e.type === 'tool/result' && e.sourceEventSeqs?.[0] === callSeq)
        if (result !== undefined && result.seq >= stored.length) {
          expect((result.data as { error?: { code: string } }).error?.code, context).toBe(TOOL_OUTCOME_UNKNOWN)
        }
      }
      const loaded = await app.persistence.load('crash')
      expect(loaded.events, context).toEqual(expected)
      expect(readFileSync(path, 'utf8'), context).toBe(bytes.subarray(0, headerEnd).toString('utf8') + expected.map(eventLine).join(''))
    }
    // Three children at a time: they mostly wait on fsync and process start-up.
    for (let at = 0; at < plans.length; at += 3) await Promise.all(plans.slice(at, at + 3).map(verify))
  }, 120_000)
})
