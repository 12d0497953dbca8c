import type { SessionEvent } from '@bridle/session'
import { INBOX_SPLICED, type InboxSplice } from './types.js'

/** Result of {@link foldConsumedWork}. */
export interface ConsumedWork {
  /** The last `turn/end` whose turn accounted for work (it stepped, or claimed and did not complete). */
  end?: SessionEvent
  /** Whether input was dropped unrun (a canceled splice that inserted nothing) after that turn. */
  droppedUnrun: boolean
}

/**
 * Pure fold for hosts that must decide whether the last turn did any work. Claims made while no turn
 * is open count for nothing; replacements do not count as dropped input.
 */
export function foldConsumedWork(events: readonly SessionEvent[]): ConsumedWork {
  const result: ConsumedWork = { droppedUnrun: false }
  let open = false
  let stepped = false
  let claimed = false
  for (const event of events) {
    switch (event.type) {
      case 'turn/start':
        open = true
        stepped = false
        claimed = false
        break
      case 'step/start':
        if (open) stepped = true
        break
      case INBOX_SPLICED: {
        const splice = event.data as InboxSplice
        if (splice.outcome === 'canceled') {
          if (splice.inserted.length === 0) result.droppedUnrun = true
        } else if ((splice.removedCount ?? 0) > 0 && open) {
          claimed = true
        }
        break
      }
      case 'turn/end': {
        const reason = (event.data as { reason?: { kind?: string } }).reason
        if (open && (stepped || (claimed && reason?.kind !== 'completed'))) {
          result.end = event
          result.droppedUnrun = false
        }
        open = false
        stepped = false
        claimed = false
        break
      }
    }
  }
  return result
}
