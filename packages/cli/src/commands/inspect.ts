import { redactSecrets } from '@bridle/llm/secrets'
import { cachePrefixReport, requestSteps, type SessionEvent } from '@bridle/session'
import { openReader, type SessionReader } from '../reader.js'
import { EXIT } from '../errors.js'
import { knownSections } from '../inspect/known-sections.js'
import { renderEventList, renderOverview, renderStep } from '../inspect/render.js'
import { renderCacheReport } from '../inspect/cache.js'
import { lineSectionNamer } from '../inspect/cache-sections.js'
import { checkCanFollow, followSession } from '../inspect/follow.js'
import { resolveSessionId } from '../session-id.js'
import { renderRecovery } from '../inspect/recovery.js'
import { toolNamesByCall, describeEvent } from '../inspect/describe.js'
import { attributeSections } from '../inspect/sections.js'
import { stepView, summarizeTurns } from '../inspect/step-view.js'
import { renderVerify, verifySession } from '../inspect/verify.js'
import { requestDigestRows } from '../inspect/requests.js'
import { RuntimeFailure, UsageError } from '../errors.js'
import { paint, type Io } from '../terminal.js'

export interface InspectOptions {
  config?: string
  step?: string
  turn?: string
  json?: boolean
  cache?: boolean
  verify?: boolean
  events?: boolean
  follow?: boolean
  /** With `--step`: every section, message and context in full instead of one cut line each. */
  full?: boolean
  /** `--root DIR`: read the JSONL sessions stored under DIR (no bridle.yaml needed). */
  root?: string
}

const positive = (text: string, flag: string) => {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer, got "${text}"`)
  return n
}

/**
 * Picks the step `--step N` names: step N of `--turn T`, or of the last turn that has a step N.
 * `--step T.S` names both at once.
 */
function pickStep(id: string, events: readonly SessionEvent[], stepText: string, turnText: string | undefined) {
  const [a, b] = stepText.split('.')
  const turnOfStep = b !== undefined ? positive(a!, '--step') : undefined
  const turnOfFlag = turnText !== undefined ? positive(turnText, '--turn') : undefined
  // `--step T.S --turn U` with U ≠ T asks for two different steps: refuse rather than pick one silently
  if (turnOfStep !== undefined && turnOfFlag !== undefined && turnOfStep !== turnOfFlag) {
    throw new UsageError(`--step ${stepText} names turn ${turnOfStep}, but --turn says ${turnOfFlag}`)
  }
  const turn = turnOfStep ?? turnOfFlag
  const step = positive(b ?? a!, '--step')
  const all = requestSteps(events as SessionEvent[])
  const found = all.filter((s) => s.step === step && (turn === undefined || s.turn === turn)).at(-1)
  if (!found) {
    // the same family as a missing session: what was named is not in the log (exit 1); the steps that are, listed
    const asked = `step ${turn !== undefined ? `${turn}.` : ''}${step}`
    throw new RuntimeFailure(
      all.length === 0
        ? `session ${id} has no ${asked}: it has no steps yet`
        : `session ${id} has no ${asked}; its steps: ${listSteps(all)}`,
    )
  }
  return found
}

/** The steps of a log as `turn 1: 1–2 · turn 2: 1`, at most 12 turns (the last ones). */
function listSteps(steps: readonly { turn: number; step: number }[]): string {
  const byTurn = new Map<number, number[]>()
  for (const s of steps) byTurn.set(s.turn, [...(byTurn.get(s.turn) ?? []), s.step])
  const turns = [...byTurn].map(([turn, list]) => {
    const max = Math.max(...list)
    return `turn ${turn}: ${max === 1 ? '1' : `1–${max}`}`
  })
  const shown = turns.slice(-12)
  return `${turns.length > shown.length ? `(${turns.length - shown.length} earlier turns) · ` : ''}${shown.join(' · ')} (--step T.S names one)`
}

/**
 * `bridle inspect ID [--step N] [--events] [--json] [--cache] [--verify] [--follow]`. Exits 1 when verification
 * fails and 3 when there was nothing to verify; with `--follow` it then prints events as they are written until
 * interrupted. It reads through a read-only boot (`openReader`). Section names come from the log's section manifests;
 * only a log written before manifests falls back to matching the current app's sections, and only then is the whole
 * app started.
 */
export async function inspect(id: string, options: InspectOptions, io: Io): Promise<number> {
  const reader = await openReader(options.config, options.root)
  try {
    // refused before anything is printed: the session is not shown only for the command to fail after it
    if (options.follow) checkCanFollow(reader.persistence)
    const resolved = await resolveSessionId(reader.persistence, id)
    const code = await inspectSession(reader, resolved, options, io)
    if (options.follow) await followSession(reader.persistence, resolved, io, paint(io), options.json === true)
    return code
  } finally {
    await reader.close()
  }
}

async function inspectSession(reader: SessionReader, id: string, options: InspectOptions, io: Io): Promise<number> {
  const p = paint(io)
  const { meta, events, recovery } = await reader.persistence.inspect(id)
  const report: Record<string, unknown> = { id, header: meta }
  let text = ''
  if (recovery !== undefined) {
    report.recovery = recovery
    text += renderRecovery(recovery, p)
  }

  if (options.step !== undefined) {
    const at = pickStep(id, events, options.step, options.turn)
    const view = stepView(events, at.turn, at.step, [], { full: options.full })
    if (view.sectionNames === 'app')
      view.system = attributeSections(
        view.systemText,
        await knownSections(await reader.appContext(), meta, view.header),
      )
    report.step = view
    text += renderStep(view, p, { events: options.events, full: options.full, columns: io.columns })
  } else {
    const turns = summarizeTurns(events)
    report.turns = turns
    text += renderOverview(id, meta, turns, p, { full: options.full, columns: io.columns })
    if (options.events) {
      const toolNames = toolNamesByCall(events)
      const list = events.map((e) => ({ seq: e.seq, type: e.type, detail: describeEvent(e, toolNames) }))
      report.events = list
      text += renderEventList(list, p)
    }
  }

  // each request's model-view digests, to compare requests across sessions (JSON only: the text shows the verdicts)
  if (options.json && options.step === undefined) report.requests = requestDigestRows(events)

  let code: number = EXIT.ok
  if (options.verify) {
    const verified = verifySession(events)
    report.verify = { ...verified, ok: verified.outcome === 'passed' }
    text += renderVerify(verified, p)
    code =
      verified.outcome === 'failed' ? EXIT.failure : verified.outcome === 'nothing' ? EXIT.nothingVerified : EXIT.ok
  }

  if (options.cache) {
    const rows = cachePrefixReport(events)
    report.cache = rows
    text += renderCacheReport(rows, p, await lineSectionNamer(rows, events, reader.appContext, meta), (t) =>
      redactSecrets(t),
    )
  }

  io.out(options.json ? `${JSON.stringify(report, null, 2)}\n` : text)
  return code
}
