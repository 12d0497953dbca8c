import type { AnySessionEvent, SessionHeader, SessionPersistence } from '@bridle/session'
import { RequestViewCursor } from './model/request.js'
import { sessionSummary, sessionView } from './model/timeline.js'
import { wholeSession } from './model/whole-session.js'
import type { RequestRow, RequestView, SessionSummary, SessionView } from './types.js'

/** A session the backend does not have. */
export class SessionNotFoundError extends Error {
  override name = 'SessionNotFoundError'
  constructor(readonly id: string) {
    super(`session "${id}" not found`)
  }
}

interface Entry {
  revision: string
  meta: SessionHeader
  events: readonly AnySessionEvent[]
  summary?: SessionSummary
  view?: SessionView
  requests: Map<number, RequestView>
  /** The replay request views are served from, kept open between them. */
  cursor?: RequestViewCursor
}

/**
 * The viewer's read side over any `ctx.sessionPersistence`: it only lists and inspects, never writes. What it
 * computes from a log (summaries, the session view, request views) is kept per session revision, so a page that
 * asks again after nothing changed costs one `listSnapshots`.
 */
export class ViewSource {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly persistence: SessionPersistence) {}

  /** Every stored session's revision (the backend's change marker). */
  async revisions(signal?: AbortSignal): Promise<Map<string, { meta: SessionHeader; revision: string }>> {
    const snapshots = await this.persistence.listSnapshots(signal)
    return new Map(snapshots.map((s) => [s.meta.id, { meta: s.meta, revision: s.revision }]))
  }

  private async entry(id: string, known?: { meta: SessionHeader; revision: string }): Promise<Entry> {
    const current = known ?? (await this.revisions()).get(id)
    if (current === undefined) throw new SessionNotFoundError(id)
    const cached = this.entries.get(id)
    if (cached && cached.revision === current.revision) return cached
    const { meta, events } = await this.persistence.inspect(id)
    const entry: Entry = { revision: current.revision, meta, events, requests: new Map() }
    this.entries.set(id, entry)
    return entry
  }

  /** One row per stored session, newest first; a log that cannot be read is listed with its error. */
  async sessions(): Promise<SessionSummary[]> {
    const known = await this.revisions()
    const rows: SessionSummary[] = []
    for (const [id, current] of known) {
      try {
        const entry = await this.entry(id, current)
        entry.summary ??= entry.view?.summary ?? sessionSummary(entry.meta, entry.events)
        rows.push(entry.summary)
      } catch (error) {
        this.entries.delete(id)
        const meta = current.meta
        rows.push({
          id,
          createdAt: meta.createdAt,
          lastActivity: meta.createdAt,
          turns: 0,
          requests: 0,
          verify: 'none',
          error: messageOf(error),
        })
      }
    }
    for (const id of this.entries.keys()) if (!known.has(id)) this.entries.delete(id)
    return rows.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
  }

  /** The session page's data. Rejects with `SessionNotFoundError` for an unknown id. */
  async session(id: string): Promise<SessionView> {
    const entry = await this.entry(id)
    entry.view ??= sessionView(entry.meta, entry.events)
    return entry.view
  }

  /** The request view of the request whose `request/digest` is at `seq`; `undefined` when there is none. */
  async request(id: string, seq: number): Promise<RequestView | undefined> {
    const entry = await this.entry(id)
    const cached = entry.requests.get(seq)
    if (cached) return cached
    entry.view ??= sessionView(entry.meta, entry.events)
    const row = findRequest(entry.view, seq)
    if (row === undefined) return undefined
    // the open replay goes on to this request (or starts again, for one before the last asked)
    const view = (entry.cursor ??= new RequestViewCursor(id, entry.events)).view(seq, row)
    if (view) entry.requests.set(seq, view)
    return view
  }

  /**
   * The session page and every request view it lists, for a file that carries the whole session, from one replay of
   * its log (`wholeSession`).
   */
  async wholeSession(id: string): Promise<{ session: SessionView; requests: Record<string, RequestView> }> {
    const entry = await this.entry(id)
    const whole = wholeSession(id, entry.meta, entry.events)
    entry.view ??= whole.session
    return whole
  }
}

export function findRequest(view: SessionView, seq: number): RequestRow | undefined {
  for (const turn of view.turns)
    for (const step of turn.steps) for (const row of step.requests) if (row.seq === seq) return row
  return undefined
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))
