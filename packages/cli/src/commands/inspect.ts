import { cachePrefixReport, reconstructRequest, requestSteps, verifyDigests, type CachePrefixRow, type SessionEvent } from '@bridle/session'
import { boot, persistenceOf } from '../boot.js'
import { resolveApp } from '../default-app.js'
import { knownSections } from '../inspect/known-sections.js'
import { renderOverview, renderStep } from '../inspect/render.js'
import { renderCacheReport } from '../inspect/cache.js'
import { renderRecovery } from '../inspect/recovery.js'
import { attributeSections, type AttributedSection, type KnownSection } from '../inspect/sections.js'
import { stepView, summarizeTurns } from '../inspect/step-view.js'
import { UsageError } from '../model-selection.js'
import { paint, type Io } from '../terminal.js'

export interface InspectOptions {
  config?: string
  step?: string
  turn?: string
  json?: boolean
  cache?: boolean
  verify?: boolean
}

const positive = (text: string, flag: string) => {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`bridle: ${flag} must be a positive integer, got "${text}"`)
  return n
}

/**
 * Picks the step `--step N` names: step N of `--turn T`, or of the last turn that has a step N.
 * `--step T.S` names both at once.
 */
export function pickStep(events: readonly SessionEvent[], stepText: string, turnText: string | undefined) {
  const [a, b] = stepText.split('.')
  const turn = b !== undefined ? positive(a!, '--step') : turnText !== undefined ? positive(turnText, '--turn') : undefined
  const step = positive(b ?? a!, '--step')
  const candidates = requestSteps(events as SessionEvent[]).filter((s) => s.step === step && (turn === undefined || s.turn === turn))
  const found = candidates.at(-1)
  if (!found) throw new UsageError(`bridle: the session has no step ${step}${turn !== undefined ? ` in turn ${turn}` : ''}`)
  return found
}

interface VerifyRow {
  turn: number
  step: number
  attempt: number
  purpose?: 'compaction'
  ok: boolean
  mismatched: readonly string[]
  error?: string
}

/** `bridle inspect ID [--step N] [--json] [--cache] [--verify]`. Exits 1 when verification fails. */
export async function inspect(id: string, options: InspectOptions, io: Io): Promise<number> {
  const booted = await boot(await resolveApp(options.config), { withModel: false, secrets: io.secrets })
  const p = paint(io)
  const { meta, events, recovery } = await persistenceOf(booted.ctx).inspect(id)
  const report: Record<string, unknown> = { id, header: meta }
  let text = ''
  if (recovery !== undefined) {
    report.recovery = recovery
    text += renderRecovery(recovery, p)
  }

  if (options.step !== undefined) {
    const at = pickStep(events, options.step, options.turn)
    const view = stepView(events, at.turn, at.step, [])
    view.system = attributeSections(view.systemText, await knownSections(booted.ctx, meta, view.header))
    report.step = view
    text += renderStep(view, p)
  } else {
    const turns = summarizeTurns(events)
    report.turns = turns
    text += renderOverview(id, meta, turns, p)
  }

  let failed = false
  if (options.verify) {
    const rows = verifyDigests(events) as readonly VerifyRow[]
    const digested = new Set(rows.map((r) => `${r.turn}.${r.step}`))
    const undigested = requestSteps(events).filter((s) => !digested.has(`${s.turn}.${s.step}`))
    failed = rows.some((r) => !r.ok)
    report.verify = { steps: rows, noDigest: undigested.map(({ turn, step }) => ({ turn, step })), ok: !failed }
    text += `${p.bold('verify')} (each request rebuilt from the log and checked against request/digest)\n`
    for (const r of rows) {
      const what = `turn ${r.turn} step ${r.step} attempt ${r.attempt}${r.purpose === 'compaction' ? ' (summary request)' : ''}`
      text += r.ok ? `  ${p.green('✓')} ${what}\n` : `  ${p.red('✗')} ${what}: ${r.mismatched.join(', ')}${r.error ? ` (${r.error})` : ''}\n`
    }
    for (const s of undigested) text += `  ${p.dim('–')} turn ${s.turn} step ${s.step}: no digest recorded\n`
    text += failed ? `${p.red('verification failed')}\n` : `${p.green(`verification passed: ${rows.length} request${rows.length === 1 ? '' : 's'} match their digests`)}\n`
  }

  if (options.cache) {
    const rows = cachePrefixReport(events)
    report.cache = rows
    // Sections are named only where the system prompt broke, each against the app's sections rendered for
    // that request's own route (a section may render {{provider}} or {{model}}); one assembly per route.
    const knownByRoute = new Map<string, KnownSection[]>()
    const broken = new Map<CachePrefixRow, AttributedSection[]>()
    for (const row of rows) {
      if (row.system?.kept !== false) continue
      const header = reconstructRequest(events, { turn: row.turn, step: row.step }).header
      const config = header.config as unknown as Record<string, unknown>
      const route = { provider: String(config.provider), model: String(config.model) }
      const key = JSON.stringify(route)
      let known = knownByRoute.get(key)
      if (known === undefined) knownByRoute.set(key, (known = await knownSections(booted.ctx, meta, route)))
      broken.set(row, attributeSections(header.system ?? '', known))
    }
    text += renderCacheReport(rows, p, (row, line) => {
      let start = 0
      for (const section of broken.get(row) ?? []) {
        const end = start + section.text.split('\n').length
        if (line > start && line <= end) return section.name
        start = end + 1
      }
      return undefined
    })
  }

  io.out(options.json ? `${JSON.stringify(report, null, 2)}\n` : text)
  return failed ? 1 : 0
}
