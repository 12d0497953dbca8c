import type { UserMessage } from '@bridle/llm'

/** Which queue a message waits in: `next-turn` opens a turn, `next-step` joins the next step. */
export type InboxTarget = 'next-turn' | 'next-step'

/**
 * Payload of the durable session event `agent/inbox/spliced`: one normalized change to one queue.
 * `removedCount` is omitted when nothing was removed; `outcome: 'canceled'` marks an ordinary removal
 * or replacement (claims never carry it).
 */
export interface InboxSplice {
  target: InboxTarget
  start: number
  removedCount?: number
  inserted: UserMessage[]
  outcome?: 'canceled'
}

/** Callbacks the owner (the Agent) supplies; the inbox calls them after each committed change. */
export interface InboxNotifications {
  inserted(message: UserMessage): void
  discarded(message: UserMessage): void
  claimed(message: UserMessage, turn: number): void
}

declare module '@bridle/session' {
  interface SessionEventMap {
    'agent/inbox/spliced': InboxSplice
  }
}

/** The session event type the inbox writes and replays. */
export const INBOX_SPLICED = 'agent/inbox/spliced'
