/**
 * A loopback server that answers `POST /v1/messages` the way the Messages API does: named Server-Sent Events
 * (`event: message_start` … `event: message_stop`, `ping`, `error`), error answers with the API's JSON shape, and
 * the misbehaviours the adapter must survive (a socket reset mid-block, silence, pings forever). The server itself is
 * `@bridle/llm/testing`'s loopback skeleton (127.0.0.1, a random port, a first-in-first-out script); this file names
 * the Messages wire.
 */
import {
  startLoopbackServer,
  type LoopbackBehaviour,
  type LoopbackServer,
  type LoopbackWire,
  type RecordedRequest,
} from '@bridle/llm/testing'

export type { RecordedRequest }

/** One SSE event: a named event with a JSON (or raw string) payload, or raw bytes written verbatim. */
export type MessagesSseItem = { event: string; data: unknown } | { raw: string }

/**
 * What the server does with one request: `sse`, `http-error`, `close-early`, `hang`, `stream` (each event as an
 * async iterable produces it; one that throws resets the connection), and `repeat`: 200 and the events, then
 * `repeat` every `everyMs` until the client leaves (pings forever, an endless answer).
 */
export type MockBehaviour =
  | Exclude<LoopbackBehaviour<MessagesSseItem>, { kind: 'repeat' }>
  | { kind: 'repeat'; events: MessagesSseItem[]; repeat: MessagesSseItem; everyMs: number }

export type MockServer = LoopbackServer<MockBehaviour>

/** The bytes of one item on the wire. */
export function encodeSseItem(item: MessagesSseItem): string {
  if ('raw' in item) return item.raw
  const data = typeof item.data === 'string' ? item.data : JSON.stringify(item.data)
  return `event: ${item.event}\ndata: ${data}\n\n`
}

const MESSAGES_WIRE: LoopbackWire<MessagesSseItem, MockBehaviour> = {
  encode: encodeSseItem,
  errorBody: (message) => ({ type: 'error', error: { type: 'api_error', message } }),
  behaviour: (entry) =>
    entry.kind === 'repeat'
      ? { kind: 'repeat', events: entry.events, item: entry.repeat, intervalMs: entry.everyMs }
      : entry,
}

/** Starts the server with an initial script; an exhausted script answers 500 with an `api_error`. */
export function startMockServer(script: MockBehaviour[] = []): Promise<MockServer> {
  return startLoopbackServer(MESSAGES_WIRE, script)
}
