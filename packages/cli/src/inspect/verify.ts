import { requestSteps, verifyDigests, type SessionEvent } from '@bridle/session'
import type { Paint } from '../terminal.js'

/** What `inspect --verify` found, for the text and JSON reports and the exit code. */
export interface VerifyReport {
  steps: {
    turn: number
    step: number
    attempt: number
    /** `'compaction'` for a summary request. */
    purpose?: 'compaction'
    ok: boolean
    mismatched: readonly string[]
    error?: string
  }[]
  /** Steps that recorded no `request/digest` (old logs, or a stop before dispatch): not failures, not proof. */
  noDigest: { turn: number; step: number }[]
  /** `passed`: every digest matched; `failed`: one did not; `nothing`: the log has no digest to check. */
  outcome: 'passed' | 'failed' | 'nothing'
}

/** Rebuilds every request of the log and checks it against its `request/digest`. */
export function verifySession(events: readonly SessionEvent[]): VerifyReport {
  const steps = verifyDigests(events).map(({ turn, step, attempt, purpose, ok, mismatched, error }) => ({
    turn,
    step,
    attempt,
    ...(purpose !== undefined ? { purpose } : {}),
    ok,
    mismatched,
    ...(error !== undefined ? { error } : {}),
  }))
  const digested = new Set(steps.map((r) => `${r.turn}.${r.step}`))
  const noDigest = requestSteps(events)
    .filter((s) => !digested.has(`${s.turn}.${s.step}`))
    .map(({ turn, step }) => ({ turn, step }))
  const outcome = steps.length === 0 ? 'nothing' : steps.some((r) => !r.ok) ? 'failed' : 'passed'
  return { steps, noDigest, outcome }
}

const requests = (n: number) => `${n} request${n === 1 ? '' : 's'}`

/** The `--verify` section of `inspect`'s text output. */
export function renderVerify(report: VerifyReport, p: Paint): string {
  let text = `${p.bold('verify')} (each request rebuilt from the log and checked against request/digest)\n`
  for (const r of report.steps) {
    const head = `turn ${r.turn} step ${r.step} attempt ${r.attempt}${r.purpose === 'compaction' ? ' (summary request)' : ''}`
    text += r.ok
      ? `  ${p.green('✓')} ${head}\n`
      : `  ${p.red('✗')} ${head}: ${r.mismatched.join(', ')}${r.error ? ` (${r.error})` : ''}\n`
  }
  for (const s of report.noDigest) text += `  ${p.dim('–')} turn ${s.turn} step ${s.step}: no digest recorded\n`
  const failed = report.steps.filter((r) => !r.ok).length
  if (report.outcome === 'failed') {
    text += `${p.red(`verification failed: ${requests(failed)} of ${report.steps.length} do not match their digests`)}\n`
  } else if (report.outcome === 'nothing') {
    text += `${p.yellow('nothing verified: the log records no request digest (no request was sent, or the log predates digests)')}\n`
  } else {
    const n = report.steps.length
    text += `${p.green(`verification passed: ${requests(n)} ${n === 1 ? 'matches its digest' : 'match their digests'}`)}\n`
  }
  return text
}
