import { oneLine, stamp, type Paint } from '../terminal.js'
import type { StepView, TurnSummary } from './step-view.js'

const reasonText = (reason: { kind: string; [key: string]: unknown } | undefined) => {
  if (!reason) return 'open'
  if (reason.kind === 'error') return `error: ${(reason.error as { message?: string })?.message ?? ''}`
  if (reason.kind === 'aborted') return `aborted (${(reason.reason as { kind?: string })?.kind ?? '?'})`
  if (reason.kind === 'max-steps') return `max-steps (stopped at its cap of ${reason.steps} steps)`
  return reason.kind
}

/** The session overview: each turn with its end reason, each step with its tool calls or answer. */
export function renderOverview(
  id: string,
  header: { createdAt: number; cwd?: string },
  turns: TurnSummary[],
  p: Paint,
  options: StepTextOptions = {},
): string {
  const fit = fitter(options)
  const lines = [
    `${p.bold(`session ${id}`)}  created ${stamp(header.createdAt)} UTC${header.cwd ? `  cwd ${header.cwd}` : ''}`,
  ]
  if (turns.length === 0) lines.push('  no turns yet')
  for (const turn of turns) {
    lines.push(`${p.bold(`turn ${turn.turn}`)} ${p.dim(`(seq ${turn.startSeq})`)} ${reasonText(turn.end?.reason)}`)
    for (const step of turn.steps) {
      const did = step.compaction
        ? `compaction: ${step.compaction.count} messages ${step.compaction.replaced ? '→ 1 summary' : 'kept (the summary request failed)'}`
        : step.toolCalls.length > 0
          ? `tool calls: ${step.toolCalls.join(', ')}`
          : step.answer
            ? fit('answer: ', step.answer, 80)
            : step.requested
              ? 'no output'
              : 'no request'
      lines.push(`  step ${step.step} ${p.dim(`(seq ${step.stepStartSeq})`)} ${did}`)
    }
  }
  return lines.join('\n') + '\n'
}

/** How `renderStep` fits long text: whole (`--full`), to the terminal's width, or to fixed widths (a pipe). */
export interface StepTextOptions {
  events?: boolean
  /** `--full`: every section, message and context in full, over as many lines as it has. */
  full?: boolean
  /** The terminal's width: lines are cut to it rather than to the fixed widths a pipe gets. */
  columns?: number
}

/** The visible length of a painted string. */
const visible = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '').length

/**
 * One line of `prefix` and `text`: `text` in full (`--full`, its further lines indented under the first), else cut
 * with an ellipsis to what is left of the terminal's width, or to `fixed` characters without a terminal. The cut is
 * `oneLine`'s, so the CLI's redaction applies before it.
 */
function fitter(options: StepTextOptions) {
  return (prefix: string, text: string, fixed: number): string => {
    if (options.full) {
      const indent = ' '.repeat(Math.min(visible(prefix), 8))
      return `${prefix}${text
        .split('\n')
        .map((line, i) => (i === 0 || line === '' ? line : `${indent}${line}`))
        .join('\n')}`
    }
    const room = !options.columns ? fixed : Math.max(20, options.columns - visible(prefix))
    return `${prefix}${oneLine(text, room)}`
  }
}

/** What one step's request contained, section by section. */
export function renderStep(view: StepView, p: Paint, options: StepTextOptions = {}): string {
  const fit = fitter(options)
  const lines: string[] = []
  const h = view.header
  lines.push(p.bold(`turn ${view.turn} · step ${view.step}`))
  lines.push(
    `${p.bold('header')}      reason ${h.reason ?? '?'} (seq ${h.seq ?? '?'}) · ${h.provider}/${h.model}` +
      Object.entries(h.config)
        .filter(([k]) => k !== 'provider' && k !== 'model')
        .map(([k, v]) => ` · ${k} ${JSON.stringify(v)}`)
        .join(''),
  )
  if (view.context) lines.push(`${p.bold('context')}     ${JSON.stringify(view.context)}`)
  const names =
    view.sectionNames === 'log' ? 'names from the log' : 'names matched against the current app: the log records none'
  lines.push(`${p.bold(`system sections (${view.system.length}, in order;`)} ${p.dim(names)}${p.bold(')')}`)
  view.system.forEach((s, i) => {
    const origin = s.order === undefined ? '' : p.dim(` (order ${s.order}${s.scope === 'scoped' ? ', scoped' : ''})`)
    lines.push(fit(`  ${i + 1}. ${s.name ?? p.dim('(unnamed)')}${origin}: `, s.text, 90))
  })
  lines.push(p.bold(`tools (${view.tools.length}, in order)`) + (view.tools.length ? ` ${view.tools.join(', ')}` : ''))
  lines.push(p.bold(`messages (${view.messages.length})`))
  for (const m of view.messages)
    lines.push(fit(`  ${m.index}. ${m.role} · ${m.source} ${p.dim(`(seq ${m.seq ?? '?'})`)}: `, m.summary, 80))
  if (view.snapshot) {
    lines.push(`${p.bold('runtime context')} ${p.dim(`(seq ${view.snapshot.seq ?? '?'})`)}`)
    if (view.snapshot.sections.length === 0) lines.push(fit('  ', view.snapshot.text, 100))
    for (const s of view.snapshot.sections) lines.push(fit(`  ${s.name}: `, s.text, 90))
  } else lines.push(`${p.bold('runtime context')} none in this request`)
  lines.push(p.bold('events') + (options.events ? '' : p.dim(' (stream chunks folded; --events lists each)')))
  const listed = options.events ? view.events.map((e) => ({ ...e, seq: String(e.seq) })) : foldChunks(view.events)
  const width = Math.max(4, ...listed.map((e) => e.seq.length))
  for (const e of listed) lines.push(fit(`  ${e.seq.padStart(width)} ${e.type.padEnd(20)} `, e.detail, 70))
  return lines.join('\n') + '\n'
}

type EventLine = { seq: number; type: string; detail: string }

/**
 * Folds each run of consecutive `assistant/chunk` events into one line, `assistant/chunk ×37`, with the chunk
 * types it held (`text-delta ×33, block-start ×2, …`): one model answer is hundreds of chunks.
 */
export function foldChunks(events: readonly EventLine[]): { seq: string; type: string; detail: string }[] {
  const out: { seq: string; type: string; detail: string }[] = []
  for (let i = 0; i < events.length; ) {
    const e = events[i]!
    let j = i
    while (j < events.length && events[j]!.type === 'assistant/chunk') j++
    if (j - i < 2) {
      out.push({ seq: String(e.seq), type: e.type, detail: e.detail })
      i += 1
      continue
    }
    const kinds = new Map<string, number>()
    for (let k = i; k < j; k++) kinds.set(events[k]!.detail, (kinds.get(events[k]!.detail) ?? 0) + 1)
    out.push({
      seq: `${e.seq}–${events[j - 1]!.seq}`,
      type: `assistant/chunk ×${j - i}`,
      detail: [...kinds].map(([kind, n]) => `${kind} ×${n}`).join(', '),
    })
    i = j
  }
  return out
}

/** Every event of a session, one line each (`inspect ID --events`). */
export function renderEventList(events: readonly EventLine[], p: Paint): string {
  const lines = [p.bold(`events (${events.length})`)]
  for (const e of events)
    lines.push(`  ${String(e.seq).padStart(4)} ${e.type.padEnd(20)} ${p.dim(oneLine(e.detail, 90))}`)
  return lines.join('\n') + '\n'
}
