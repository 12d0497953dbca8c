import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionStore, type Session } from '@bridle/session'
import { Context, Logger } from 'cordis'
import { afterEach, expect, onTestFinished } from 'vitest'
import { sealLog, SessionJsonl, type FsLayer, type SessionJsonlConfigInput } from '../src/index.js'
import { scriptedAppends, type ScriptedAppend } from './fixtures/script.js'

export interface App {
  ctx: Context
  root: string
  persistence: SessionJsonl
}

/** A fresh temp directory for one test; the returned root does not exist yet. */
export function tempRoot(): string {
  return join(mkdtempSync(join(tmpdir(), 'bridle-jsonl-')), 'sessions')
}

const forks: { dispose(): unknown }[] = []
afterEach(() => {
  for (const fork of forks.splice(0)) fork.dispose()
})

/** A cordis app with `SessionStore` and `SessionJsonl` loaded over `root`, optionally with a fault-injecting fs. */
export function makeApp(config: SessionJsonlConfigInput = {}, fs?: FsLayer, root = tempRoot()): App {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  forks.push(ctx.plugin(jsonlPlugin(fs), { root, ...config }))
  const persistence = ctx.sessionPersistence as SessionJsonl | undefined
  if (persistence === undefined) throw new Error('sessionPersistence did not start')
  return { ctx, root, persistence }
}

/** `SessionJsonl`, or a subclass that runs over `fs`. */
export function jsonlPlugin(fs?: FsLayer): typeof SessionJsonl {
  if (fs === undefined) return SessionJsonl
  return class extends SessionJsonl {
    constructor(ctx: Context, config: never) {
      super(ctx, config, { fs })
    }
  }
}

/**
 * Captures `session-jsonl` warnings written through the cordis logger for the current test, and keeps them off the
 * console meanwhile (the capture target has its own levels; the console's level for `session-jsonl` drops to errors).
 */
export function captureWarnings(): string[] {
  const seen: string[] = []
  const target = {
    levels: { base: 2 },
    record(record: { name: string; type: string; content: string }) {
      if (record.name === 'session-jsonl' && record.type === 'warn') seen.push(record.content)
    },
  }
  ;(Logger.targets as unknown[]).push(target)
  const levels = Logger.levels as Record<string, unknown>
  const previous = levels['session-jsonl']
  levels['session-jsonl'] = 1
  onTestFinished(() => {
    const targets = Logger.targets as unknown[]
    const index = targets.indexOf(target)
    if (index >= 0) targets.splice(index, 1)
    if (previous === undefined) delete levels['session-jsonl']
    else levels['session-jsonl'] = previous
  })
  return seen
}

/** Replays scripted appends on a live session (seqs must line up with the script). */
export function replay(session: Session, appends: readonly ScriptedAppend[]): void {
  for (const a of appends) session.append(a.type, a.data, a.opts)
}

export { scriptedAppends }

/**
 * The plain JSONL of a sealed log text: asserts that every line carries a checksum that holds (resealing changes
 * nothing), then drops the checksum fields, so a test can compare it with `headerLine` + `eventLine` output.
 */
export function unsealed(text: string): string {
  expect(sealLog(text), 'the log is not sealed with a valid checksum chain').toBe(text)
  return text.replace(/,"crc":"[0-9a-f]{8}"\}\n/g, '}\n')
}
