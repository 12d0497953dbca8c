import { createUserMessage, type UserMessage } from '@bridle/llm'
import { Session } from '@bridle/session'
import { Inbox, type InboxNotifications } from '@bridle/inbox'

export type Note = ['inserted' | 'discarded', string] | ['claimed', string, number]

/** A detached session plus an inbox whose notifications are recorded as `[kind, text(, turn)]`. */
export function setup(id = 's1'): { session: Session; inbox: Inbox; notes: Note[]; notify: InboxNotifications } {
  const session = Session.create(id)
  const notes: Note[] = []
  const notify: InboxNotifications = {
    inserted: (m) => notes.push(['inserted', text(m)]),
    discarded: (m) => notes.push(['discarded', text(m)]),
    claimed: (m, turn) => notes.push(['claimed', text(m), turn]),
  }
  return { session, inbox: new Inbox(session, notify), notes, notify }
}

export function msg(text: string): UserMessage {
  return createUserMessage(text)
}

export function text(m: UserMessage): string {
  const block = m.content[0]
  return block && block.type === 'text' ? block.text : '?'
}

/** The `agent/inbox/spliced` payloads of the log, with inserted messages reduced to their text. */
export function splices(session: Session): unknown[] {
  return session.events
    .filter((e) => e.type === 'agent/inbox/spliced')
    .map((e) => {
      const d = e.data as { inserted: UserMessage[] }
      return { ...d, inserted: d.inserted.map(text) }
    })
}
