import type { UserMessage } from '@bridle/llm'
import type { Session } from '@bridle/session'
import { validateSplice } from './normalize.js'
import { INBOX_SPLICED, type InboxSplice, type InboxTarget } from './types.js'

/**
 * Rebuilds pending queues from the log: every `agent/inbox/spliced` at or after `header.seedLength`, in
 * order, validated against the state replayed so far and applied. A bad record throws
 * `invalid persisted inbox splice at session seq <seq>` with the validation error as `cause`.
 */
export function replaySplices(session: Session, lists: Record<InboxTarget, UserMessage[]>): void {
  const events = session.events
  const from = session.header.seedLength ?? 0
  for (let i = from; i < events.length; i++) {
    const event = events[i]!
    if (event.type !== INBOX_SPLICED) continue
    const record = event.data as InboxSplice
    try {
      if (typeof record !== 'object' || record === null) throw new Error('invalid inbox splice')
      validateSplice(record, lists)
    } catch (cause) {
      throw new Error(`invalid persisted inbox splice at session seq ${event.seq}`, { cause })
    }
    lists[record.target].splice(record.start, record.removedCount ?? 0, ...record.inserted)
  }
}
