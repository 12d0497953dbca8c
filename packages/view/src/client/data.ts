import { unpackRequest } from '../embedded.js'
import type { EmbeddedData, RequestView, SessionSummary, SessionView } from '../types.js'

/** A change the server reports: `ready` (read now and miss nothing), the list, or one session. */
export type Change = { kind: 'ready' } | { kind: 'sessions' } | { kind: 'session'; id: string }

/** Where the page's data comes from: the `bridle view` server, or the data an `--html` file carries. */
export interface DataSource {
  readonly mode: 'server' | 'file'
  /** The one session an `--html` file holds. */
  readonly fileSession?: string
  sessions(): Promise<SessionSummary[]>
  session(id: string): Promise<SessionView>
  request(id: string, seq: number): Promise<RequestView>
  /** Calls `listener` on each change (a file never changes); returns the function that stops listening. */
  subscribe(listener: (change: Change) => void, session?: string): () => void
}

/** The last answer of each path: an answer that did not change is handed back as the same object. */
const lastAnswers = new Map<string, { text: string; value: unknown }>()

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: 'application/json' } })
  const text = await response.text()
  const last = lastAnswers.get(path)
  if (response.ok && last?.text === text) return last.value as T
  const body = JSON.parse(text) as T & { error?: string }
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`)
  lastAnswers.set(path, { text, value: body })
  return body
}

export function serverSource(): DataSource {
  return {
    mode: 'server',
    sessions: () => getJson('/api/sessions'),
    session: (id) => getJson(`/api/sessions/${encodeURIComponent(id)}`),
    request: (id, seq) => getJson(`/api/sessions/${encodeURIComponent(id)}/requests/${seq}`),
    subscribe(listener, session) {
      const events = new EventSource(
        `/api/events${session === undefined ? '' : `?session=${encodeURIComponent(session)}`}`,
      )
      for (const kind of ['ready', 'sessions', 'session'] as const) {
        events.addEventListener(kind, (event) => listener(JSON.parse((event as MessageEvent<string>).data) as Change))
      }
      return () => events.close()
    },
  }
}

export function embeddedSource(data: EmbeddedData): DataSource {
  const missing = (what: string) =>
    Promise.reject(new Error(`${what} is not in this file; it holds session ${data.session.summary.id} only`))
  return {
    mode: 'file',
    fileSession: data.session.summary.id,
    sessions: () => Promise.resolve([data.session.summary]),
    session: (id) => (id === data.session.summary.id ? Promise.resolve(data.session) : missing(`session "${id}"`)),
    request: (id, seq) => {
      const stored = id === data.session.summary.id ? data.requests[seq] : undefined
      if (!stored) return missing(`request ${seq} of session "${id}"`)
      try {
        return Promise.resolve(unpackRequest(data, stored))
      } catch (error) {
        return Promise.reject(error)
      }
    },
    subscribe: () => () => {},
  }
}
