import type { SessionPersistence } from '@bridle/session'
import { openReader } from '../reader.js'
import { paint, type Io } from '../terminal.js'

interface SessionRow {
  id: string
  createdAt: number
  turns: number
  lastActivity: number
}

/** `YYYY-MM-DD HH:MM:SS` in UTC: sortable and short enough for a table. */
const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

/** `bridle sessions`: every stored session with its creation time, turn count and last activity. */
export async function sessions(options: { config?: string; json?: boolean }, io: Io): Promise<number> {
  const reader = await openReader(options.config)
  try {
    return await listSessions(reader.persistence, options, io)
  } finally {
    await reader.close()
  }
}

async function listSessions(persistence: SessionPersistence, options: { json?: boolean }, io: Io): Promise<number> {
  const rows: SessionRow[] = []
  for (const header of await persistence.list()) {
    const { events } = await persistence.inspect(header.id)
    rows.push({
      id: header.id,
      createdAt: header.createdAt,
      turns: events.filter((e) => e.type === 'turn/start').length,
      lastActivity: events.at(-1)?.time ?? header.createdAt,
    })
  }
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
  io.out(p.bold(`${'ID'.padEnd(width)}  ${'CREATED (UTC)'.padEnd(19)}  TURNS  LAST ACTIVITY`) + '\n')
  for (const r of rows) {
    io.out(
      `${r.id.padEnd(width)}  ${stamp(r.createdAt).padEnd(19)}  ${String(r.turns).padStart(5)}  ${stamp(r.lastActivity)}\n`,
    )
  }
  return 0
}
