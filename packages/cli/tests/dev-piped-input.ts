import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { expect } from 'vitest'
import { BIN, offlineEnv } from './helpers.js'

/**
 * When a piece of piped input reaches `bridle dev`, anchored on what dev has said so far rather than on a clock:
 * as soon as the process is spawned (while the app still boots), after its k-th `bridle dev: ready` line, or after
 * its k-th streamed answer (while the prompt after it may still run).
 */
export type Arrival = { at: 'spawn' } | { at: 'ready'; k: number } | { at: 'answer'; k: number }

/** One prompt line: when it is written, and whether it arrives in two writes (a line torn across pipe reads). */
export interface PipedLine {
  text: string
  arrival: Arrival
  splitAt?: number
}

export interface PipedPlan {
  lines: PipedLine[]
  /** When stdin is closed (end of input). */
  eof: Arrival
}

/** Arrivals a writer can wait for before line `i` (0-based): line i's own ready is the (i + 1)-th. */
const arrivalBefore = (i: number): fc.Arbitrary<Arrival> =>
  fc.oneof(
    fc.constant<Arrival>({ at: 'spawn' }),
    fc.integer({ min: 1, max: i + 1 }).map((k): Arrival => ({ at: 'ready', k })),
    ...(i > 0 ? [fc.integer({ min: 1, max: i }).map((k): Arrival => ({ at: 'answer', k }))] : []),
  )

/** Up to `maxLines` prompts, each arriving at any point dev can reach before it, and the end of input likewise. */
export function pipedPlan(maxLines: number): fc.Arbitrary<PipedPlan> {
  return fc.integer({ min: 0, max: maxLines }).chain((n) =>
    fc.record({
      lines: fc.tuple(
        ...Array.from({ length: n }, (_, i) =>
          fc.record(
            {
              text: fc.constant(`question ${i + 1}`),
              arrival: arrivalBefore(i),
              splitAt: fc.integer({ min: 1, max: 9 }),
            },
            { requiredKeys: ['text', 'arrival'] },
          ),
        ),
      ),
      eof: arrivalBefore(n),
    }),
  )
}

/** What the scripted offline model answers to a prompt it has no script for (the CLI's default script). */
const ANSWER = /This answer comes from the scripted offline model/g

export interface PipedRun {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs `bridle dev` in `app` and feeds it `plan`'s input, each piece when its arrival is reached. A dev that never
 * reaches an arrival, or never exits after end of input, is killed after `guardMs` and the run reports it.
 */
export function runPiped(app: string, plan: PipedPlan, guardMs = 60_000): Promise<PipedRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'dev'], { cwd: app, env: offlineEnv() })
    let stdout = ''
    let stderr = ''
    // each piece goes out in order, once its arrival is reached; `later` pieces wait one more turn of the event loop
    // after the piece before them, so a torn line reaches dev in two reads
    const pending: { arrival: Arrival; later?: boolean; write: () => void }[] = []
    const reached = (a: Arrival) =>
      a.at === 'spawn' ||
      (a.at === 'ready' && (stderr.match(/^bridle dev: ready$/gm)?.length ?? 0) >= a.k) ||
      (a.at === 'answer' && (stdout.match(ANSWER)?.length ?? 0) >= a.k)
    let waiting = false
    const pump = () => {
      while (!waiting && pending.length > 0 && reached(pending[0]!.arrival)) {
        const next = pending[0]!
        if (next.later) {
          next.later = false
          waiting = true
          setImmediate(() => {
            waiting = false
            pump()
          })
          return
        }
        pending.shift()!.write()
      }
    }
    for (const line of plan.lines) {
      const text = `${line.text}\n`
      const cut = Math.min(line.splitAt ?? text.length, text.length)
      pending.push({ arrival: line.arrival, write: () => child.stdin.write(text.slice(0, cut)) })
      if (cut < text.length)
        pending.push({ arrival: { at: 'spawn' }, later: true, write: () => child.stdin.write(text.slice(cut)) })
    }
    pending.push({ arrival: plan.eof, later: true, write: () => child.stdin.end() })
    child.stdout.on('data', (d) => {
      stdout += d
      pump()
    })
    child.stderr.on('data', (d) => {
      stderr += d
      pump()
    })
    const guard = setTimeout(() => child.kill('SIGKILL'), guardMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(guard)
      resolve({
        code,
        stdout,
        stderr: pending.length > 0 ? `${stderr}\n(input never sent: ${pending.length})` : stderr,
      })
    })
    pump()
  })
}

/** The user prompts of a stored session, turn by turn, and how each turn ended. */
function storedTurns(app: string, id: string): { prompt: string; end: string }[] {
  const events = readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, any> })
  const turns: { prompt: string; end: string }[] = []
  for (const e of events) {
    if (e.type === 'turn/start') turns.push({ prompt: '', end: 'open' })
    else if (e.type === 'user/message' && e.data.source?.kind === 'user' && turns.at(-1)!.prompt === '')
      turns.at(-1)!.prompt = e.data.content.map((b: { text?: string }) => b.text ?? '').join('')
    else if (e.type === 'turn/end') turns.at(-1)!.end = e.data.reason.kind
  }
  return turns
}

/**
 * What piped `bridle dev` promises for any arrival of its input: it exits at end of input with the last prompt's
 * code (0 here: every turn completes), every prompt is answered in order, each in a turn of its own, n prompts say
 * `ready` n + 1 times, and the session it names is stored (a run that got no prompt names none).
 */
export function expectPipedPromises(app: string, plan: PipedPlan, run: PipedRun): void {
  const prompts = plan.lines.map((l) => l.text)
  expect(run.code, run.stderr).toBe(0)
  expect(run.stderr.match(/^bridle dev: ready$/gm)?.length ?? 0, run.stderr).toBe(prompts.length + 1)
  expect(run.stdout.match(ANSWER)?.length ?? 0, run.stdout).toBe(prompts.length)
  const named = [...run.stderr.matchAll(/^bridle(?: dev)?: session (\S+)$/gm)].map((m) => m[1]!)
  if (prompts.length === 0) {
    expect(named, run.stderr).toEqual([])
    expect(run.stderr).toContain('bridle dev: no prompt ran, so no session was stored')
    return
  }
  // named once when its first turn is stored, once at exit
  expect(new Set(named).size, run.stderr).toBe(1)
  expect(storedTurns(app, named[0]!)).toEqual(prompts.map((prompt) => ({ prompt, end: 'completed' })))
}
