/**
 * Running the crash child (child.ts) and reading what it left on disk; shared by the bounded crash tests and the
 * stress probes.
 */
import { spawn } from 'node:child_process'
import { interruptedTurnClosers, type SessionEvent } from '@bridle/session'

export interface ChildRun {
  readonly lines: string[]
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/**
 * Runs the bundled child over `root`; with `killAt`, sends SIGKILL after that many `flushed` lines plus `extraMs`
 * (with `flushes: 0`, `extraMs` after spawn). Rejects when the child fails on its own.
 */
export function runChild(
  bundle: string,
  root: string,
  turns: number,
  delayMs: number,
  killAt?: { flushes: number; extraMs: number },
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, root, String(turns), String(delayMs)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
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

/**
 * The events of the complete lines after the header (without their checksum fields), the byte offset just past
 * each line, and the header's end.
 */
export function completeLines(bytes: Buffer): { events: SessionEvent[]; ends: number[]; headerEnd: number } {
  const headerEnd = bytes.indexOf(0x0a) + 1
  const events: SessionEvent[] = []
  const ends: number[] = []
  let start = headerEnd
  for (let nl = bytes.indexOf(0x0a, start); nl >= 0; nl = bytes.indexOf(0x0a, start)) {
    const { crc: _crc, ...event } = JSON.parse(bytes.toString('utf8', start, nl)) as SessionEvent & { crc?: string }
    events.push(event)
    ends.push(nl + 1)
    start = nl + 1
  }
  return { events, ends, headerEnd }
}

/** `events` followed by the closers of an interrupted last turn. */
export function balanced(events: SessionEvent[]): SessionEvent[] {
  return [...events, ...(interruptedTurnClosers(events) as SessionEvent[])]
}

/** A deterministic PRNG so a failing offset or kill point can be reproduced from the printed seed. */
export function rng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}
