/**
 * A loopback chat-completions server for tests: the real SSE wire protocol over a real socket on 127.0.0.1, driven by
 * a first-in-first-out script of behaviours, recording every request. The server itself is `@bridle/llm/testing`'s
 * loopback skeleton; this file names the chat-completions wire (`data:` items, the OpenAI error body).
 */
import {
  startLoopbackServer,
  type LoopbackBehaviour,
  type LoopbackOptions,
  type LoopbackServer,
  type LoopbackWire,
  type RecordedRequest,
} from '@bridle/llm/testing'

export type { RecordedRequest }

/** One SSE item: a string is sent as `data: <string>`, an object as `data: <JSON>`, `raw` verbatim. */
export type SseItem = string | { raw: string } | Record<string, unknown>

/**
 * What the server does with one request: `sse`, `http-error`, `close-early`, `hang`, `repeat` (items, then one item
 * again and again until the client disconnects) and `stream` (items as an async iterable produces them).
 */
export type MockBehaviour = LoopbackBehaviour<SseItem>

export type MockServer = LoopbackServer<MockBehaviour>

/** Options of {@link startMockServer}: `respond` answers every request once the script is exhausted. */
export type MockServerOptions = LoopbackOptions<MockBehaviour>

/** Renders one item in SSE wire form. */
export function encodeSseItem(item: SseItem): string {
  if (typeof item === 'string') return `data: ${item}\n\n`
  if (isRaw(item)) return item.raw
  return `data: ${JSON.stringify(item)}\n\n`
}

function isRaw(item: object): item is { raw: string } {
  const keys = Object.keys(item)
  return keys.length === 1 && keys[0] === 'raw' && typeof (item as { raw: unknown }).raw === 'string'
}

const CHAT_COMPLETIONS_WIRE: LoopbackWire<SseItem, MockBehaviour> = {
  encode: encodeSseItem,
  errorBody: (message) => ({ error: { message, type: 'mock_error' } }),
  behaviour: (entry) => entry,
}

/**
 * Starts a server on 127.0.0.1 port 0 with the given script. Each request is read completely, recorded, then
 * consumes exactly one behaviour; an exhausted script uses `options.respond`, else answers 500
 * `{"error":{"message":"mock script exhausted","type":"mock_error"}}` and counts the request in `unexpected`.
 */
export function startMockServer(script: MockBehaviour[] = [], options: MockServerOptions = {}): Promise<MockServer> {
  return startLoopbackServer(CHAT_COMPLETIONS_WIRE, script, options)
}
