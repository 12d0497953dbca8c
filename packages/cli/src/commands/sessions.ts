import { type SessionPersistence, type SessionSummary, summarizeEvents } from '@bridle/session'
import { openReader } from '../reader.js'
import { oneLine, paint, stamp, type Io } from '../terminal.js'

interface SessionRow {
  id: string
  createdAt: number
  turns: number
  lastActivity: number
  events: number
  /** `provider/model` of the latest request or answer. */
  model: string | null
  firstPrompt: string | null
}

/** `bridle sessions`: every stored session, newest first, with its turns, last activity, model and first prompt. */
export async function sessions(options: { config?: string; json?: boolean; root?: string }, io: Io): Promise<number> {
  const reader = await openReader(options.config, options.root)
  try {
    return await listSessions(reader.persistence, options, io)
  } finally {
    await reader.close()
  }
}

/**
 * The backend's summaries (read without loading whole logs); a backend that keeps none is summarized from each full
 * log, which gives the same rows.
 */
async function summariesOf(persistence: SessionPersistence): Promise<readonly SessionSummary[]> {
  if (persistence.summaries) return persistence.summaries()
  const out: SessionSummary[] = []
  for (const { meta, revision } of await persistence.listSnapshots()) {
    out.push(summarizeEvents(meta, revision, (await persistence.inspect(meta.id)).events))
  }
  return out
}

function rowOf(summary: SessionSummary): SessionRow {
  return {
    id: summary.meta.id,
    createdAt: summary.meta.createdAt,
    turns: summary.turns,
    lastActivity: summary.lastActivity,
    events: summary.events,
    model: summary.model ? `${summary.model.provider}/${summary.model.model}` : null,
    firstPrompt: summary.firstPrompt ?? null,
  }
}

async function listSessions(persistence: SessionPersistence, options: { json?: boolean }, io: Io): Promise<number> {
  // newest first: the session a user just ran is the one on top
  const rows = (await summariesOf(persistence)).map(rowOf).reverse()
  if (options.json) {
    io.out(`${JSON.stringify(rows, null, 2)}\n`)
    return 0
  }
  const p = paint(io)
  if (rows.length === 0) {
    io.out('no sessions yet\n')
    return 0
  }
  const width = Math.max(2, ...rows.map((r) => r.id.length))
  const modelWidth = Math.max(5, ...rows.map((r) => (r.model ?? '—').length))
  io.out(
    p.bold(
      `${'ID'.padEnd(width)}  ${'CREATED (UTC)'.padEnd(19)}  TURNS  ${'LAST ACTIVITY (UTC)'.padEnd(19)}  ${'MODEL'.padEnd(modelWidth)}  FIRST PROMPT`,
    ) + '\n',
  )
  for (const r of rows) {
    const prompt = r.firstPrompt === null ? '—' : oneLine(r.firstPrompt, 60)
    io.out(
      `${r.id.padEnd(width)}  ${stamp(r.createdAt).padEnd(19)}  ${String(r.turns).padStart(5)}  ${stamp(r.lastActivity)}  ${(r.model ?? '—').padEnd(modelWidth)}  ${prompt}\n`,
    )
  }
  return 0
}
