/**
 * Our own Server-Sent Events reader (spec §1, §6.3). The SDK's iterator treats a body that ends
 * without `[DONE]` as success and hides comment lines; this reader frames bytes itself with
 * `eventsource-parser`, re-arms an idle watchdog on every byte (comments included) and tells the
 * caller whether the body ended cleanly.
 */
import { LlmError } from '@bridle/llm'
import { createParser, type EventSourceMessage } from 'eventsource-parser'

/** One dispatched SSE event with non-blank data. */
export interface SseEvent {
  event?: string
  data: string
}

export interface EventReaderOptions {
  /** Longest silence allowed while a read is pending. */
  idleTimeoutMs: number
  /** Used in the idle-timeout message. */
  baseURL: string
  /** Caller's signal: a pending read stops when it aborts. */
  signal?: AbortSignal
}

/** Thrown when the idle watchdog fires; the catch ladder checks this first. */
export class IdleTimeoutError extends LlmError {
  constructor(baseURL: string, ms: number) {
    super(`event stream from ${baseURL} idle for ${ms}ms`, 'TIMEOUT')
  }
}

/**
 * Yields the body's SSE events in order. Ends when the body ends; an event never terminated by a
 * blank line is dropped (the caller treats a missing `[DONE]` as `STREAM_CLOSED`). Stopping the
 * iteration cancels the body.
 */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array>,
  options: EventReaderOptions,
): AsyncGenerator<SseEvent, void, undefined> {
  const reader = body.getReader()
  const decoder = new TextDecoder('utf-8')
  const queue: SseEvent[] = []
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      if (message.data.trim() === '') return
      queue.push(message.event === undefined ? { data: message.data } : { event: message.event, data: message.data })
    },
  })
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!
      const { done, value } = await readWithWatchdog(reader, options)
      if (done) {
        parser.feed(decoder.decode())
        while (queue.length > 0) yield queue.shift()!
        return
      }
      parser.feed(decoder.decode(value, { stream: true }))
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>

/** One `read()` bounded by the idle timeout and the caller's signal. */
async function readWithWatchdog(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  options: EventReaderOptions,
): Promise<ReadResult> {
  const read = reader.read()
  read.catch(() => {})
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new IdleTimeoutError(options.baseURL, options.idleTimeoutMs)), options.idleTimeoutMs)
    if (options.signal !== undefined) {
      onAbort = () => reject(new LlmError('request aborted', 'ABORTED'))
      if (options.signal.aborted) onAbort()
      else options.signal.addEventListener('abort', onAbort, { once: true })
    }
  })
  try {
    return await Promise.race([read, guard])
  } finally {
    clearTimeout(timer)
    if (onAbort !== undefined) options.signal?.removeEventListener('abort', onAbort)
  }
}
