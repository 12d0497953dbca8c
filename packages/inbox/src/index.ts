export { Inbox } from './inbox.js'
export { foldConsumedWork, type ConsumedWork } from './consumed-work.js'
export { INBOX_SPLICED, type InboxNotifications, type InboxSplice, type InboxTarget } from './types.js'
