/**
 * Logger output in tests. Every vitest project loads `capture-logs.ts` as a setup file, so what a test logs through
 * cordis (`ctx.logger(...)`, including the `internal/error` reports of cordis itself) is captured instead of printed.
 * A test that provokes a warning on purpose takes it with `takeLogs()` and asserts on it. Whatever a test leaves
 * untaken is printed when it ends (one line each), so an unexpected warning is still seen. Tests that add a logger
 * target of their own (`Logger.targets.push`) are left alone: what they observe is theirs.
 */
import { Logger } from 'cordis'

/** One captured logger line: `type` is `warn`, `error`, `info`, …; `text` is the message's first line. */
export interface LoggedLine {
  readonly type: string
  readonly name: string
  readonly text: string
}

let captured: Logger.Record[] = []

const target: Logger.Target = {
  colors: 0,
  record(record) {
    // A test that installed a target of its own is observing (and asserting on) this line already.
    if (Logger.targets.length === 1) captured.push(record)
  },
}

/** Replaces cordis's printing target with the capture (idempotent). */
export function installLogCapture(): void {
  if (Logger.targets.length !== 1 || Logger.targets[0] !== target)
    Logger.targets.splice(0, Logger.targets.length, target)
}

/** The lines logged since the last call (or since the test started), as `{ type, name, text }`; clears them. */
export function takeLogs(): LoggedLine[] {
  const taken = captured.map((record) => ({
    type: record.type,
    name: record.name,
    text: record.content.split('\n')[0]!,
  }))
  captured = []
  return taken
}

/** `takeLogs()` as strings `"<type> <name>: <text>"`, the easiest shape to assert on. */
export function takeLogLines(): string[] {
  return takeLogs().map((line) => `${line.type} ${line.name}: ${line.text}`)
}

/** Drops what was captured and returns the records, for the end of a test (see capture-logs.ts). */
export function drainLogs(): Logger.Record[] {
  const records = captured
  captured = []
  return records
}
