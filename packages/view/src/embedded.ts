/**
 * How an `--html` file stores its request views: each message view once, in one table, and every request view (and
 * every diff's list of replaced messages) as indexes into it. A session's requests resend its whole history, so
 * storing each request's messages whole made the file grow with requests × history; this keeps it about the size of
 * the log. Pure data functions, shared by the export (pack) and the page (unpack).
 */
import type { EmbeddedData, MessageView, RequestView, StoredRequestView } from './types.js'

/** Packs request views whose equal messages are the same view objects (one `MessageViews` built them). */
export function packRequests(views: Record<string, RequestView>): Pick<EmbeddedData, 'messages' | 'requests'> {
  const messages: MessageView[] = []
  const index = new Map<MessageView, number>()
  const ref = (view: MessageView): number => {
    let at = index.get(view)
    if (at === undefined) {
      at = messages.length
      index.set(view, at)
      messages.push(view)
    }
    return at
  }
  const requests: Record<string, StoredRequestView> = {}
  for (const [seq, view] of Object.entries(views)) {
    const { diff, ...rest } = view
    requests[seq] = {
      ...rest,
      messages: view.messages.map(ref),
      ...(diff ? { diff: { ...diff, messages: { ...diff.messages, replaced: diff.messages.replaced.map(ref) } } } : {}),
    }
  }
  return { messages, requests }
}

/** The request view a file stored, with its messages looked up again. */
export function unpackRequest(data: EmbeddedData, stored: StoredRequestView): RequestView {
  const message = (at: number): MessageView => {
    const view = data.messages[at]
    if (view === undefined) throw new Error(`this file is damaged: request ${stored.row.seq} names message ${at}`)
    return view
  }
  const { diff, ...rest } = stored
  return {
    ...rest,
    messages: stored.messages.map(message),
    ...(diff
      ? { diff: { ...diff, messages: { ...diff.messages, replaced: diff.messages.replaced.map(message) } } }
      : {}),
  }
}
