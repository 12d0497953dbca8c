import type { AnySessionEvent, SessionHeader } from '@bridle/session'
import type { RequestRow, RequestView, SessionView } from '../types.js'
import { RequestFactsFold } from './replayed.js'
import { comparedRequests, MessageViews, requestView } from './request.js'
import { sessionView } from './timeline.js'

/**
 * The session page and the view of every request it lists, from one replay of the log: what an `--html` file carries.
 * Each request's view is built as the replay passes it and given its row once the page is built; views of the same
 * message from the same event are one object, so the file can store each once.
 */
export function wholeSession(
  sessionId: string,
  meta: SessionHeader,
  events: readonly AnySessionEvent[],
): { session: SessionView; requests: Record<string, RequestView> } {
  const facts = new RequestFactsFold(events)
  const messages = new MessageViews(events)
  const views = new Map<number, RequestView>()
  // the row is set below; the view only carries it
  const unset = undefined as unknown as RequestRow
  for (const { current, previous } of comparedRequests(events)) {
    facts.add(current)
    views.set(current.seq, requestView({ sessionId, events, row: unset, current, previous, messages }))
  }
  const session = sessionView(meta, events, facts)
  const requests: Record<string, RequestView> = {}
  for (const turn of session.turns)
    for (const step of turn.steps)
      for (const row of step.requests) {
        const view = views.get(row.seq)
        if (view !== undefined) requests[row.seq] = { ...view, row }
      }
  return { session, requests }
}
