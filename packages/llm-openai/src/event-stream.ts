/**
 * Our own Server-Sent Events reader. The SDK's iterator treats a body that ends
 * without `[DONE]` as success and hides comment lines; this reader frames bytes itself with
 * `eventsource-parser` and bounds the body: an idle watchdog re-armed by any byte (comments included),
 * a budget for progress that only the caller restores (docs/model-calls.md#bounds), a cap on the response's
 * bytes, a cap on line and event size, and a first look at the opening bytes that names an answer which is not an
 * event stream at all.
 */
import { LlmError, StreamTimeoutError, type BudgetWait, type ProgressBudget, type ResponseMeter } from '@bridle/llm'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { LineMeter } from './line-meter.js'
import { guardedRead, type ReadResult } from './read-guard.js'
import {
  isEventStreamType,
  isJsonType,
  notEventStreamError,
  sniffOpening,
  SNIFF_LIMIT_BYTES,
  SNIPPET_BYTES,
  type SniffVerdict,
} from './stream-sniff.js'

/** One dispatched SSE event with non-blank data. */
export interface SseEvent {
  event?: string
  data: string
}

export interface EventReaderOptions {
  /** Longest silence allowed while a read is pending; any byte re-arms it. */
  idleTimeoutMs: number
  /**
   * The wait for progress (`streamDataTimeoutMs`): it runs while a read is pending and only its owner restores it
   * (`progress()`, when an event carried something). Keep-alives and empty events spend it.
   */
  dataBudget?: ProgressBudget
  /** Counts every byte of the body; throws `ResponseTooLargeError` past its cap. */
  responseMeter?: ResponseMeter
  /** Longest line, and longest event (its non-comment lines together), in bytes. */
  maxLineBytes?: number
  /** The answer's content type. When given, the opening bytes are checked before any event is read. */
  contentType?: string
  /** Used in messages. */
  baseURL: string
  /** A pending read stops when it aborts. */
  signal?: AbortSignal
}

const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024

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
  const meter = new LineMeter(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)
  const queue: SseEvent[] = []
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      if (message.data.trim() === '') return
      queue.push(message.event === undefined ? { data: message.data } : { event: message.event, data: message.data })
    },
  })
  const feed = (bytes: Uint8Array) => {
    const overflow = meter.feed(bytes)
    if (overflow !== undefined) {
      throw new LlmError(
        `event stream from ${options.baseURL} sent ${overflow === 'line' ? 'a line' : 'an event'} longer than ${meter.maxBytes} bytes`,
        'MALFORMED_RESPONSE',
      )
    }
    parser.feed(decoder.decode(bytes, { stream: true }))
  }
  let waitForData: BudgetWait | undefined
  const read = async () => {
    waitForData ??= options.dataBudget?.wait()
    const result = await guardedRead(reader, {
      idleTimeoutMs: options.idleTimeoutMs,
      onIdle: () => new StreamTimeoutError('idle', options.baseURL, options.idleTimeoutMs),
      ...(waitForData === undefined ? {} : { deadline: waitForData }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
    if (!result.done) options.responseMeter?.add(result.value.byteLength)
    return result
  }
  try {
    if (options.contentType !== undefined && !(await checkOpening(read, feed, options.baseURL, options.contentType))) {
      parser.feed(decoder.decode())
    } else {
      for (;;) {
        while (queue.length > 0) {
          // the consumer's time is not the server's: the budget pauses until the next read
          waitForData?.stop()
          waitForData = undefined
          yield queue.shift()!
        }
        const { done, value } = await read()
        if (done) {
          parser.feed(decoder.decode())
          break
        }
        feed(value)
      }
    }
    while (queue.length > 0) yield queue.shift()!
  } finally {
    waitForData?.stop()
    reader.cancel().catch(() => {})
  }
}

type Read = () => Promise<ReadResult>

/**
 * Reads the opening of the body until it is clearly an event stream (then feeds what it read and
 * returns true when more may follow, false when the body already ended) or clearly not (then reads a
 * snippet and throws `MALFORMED_RESPONSE` naming the content type).
 */
async function checkOpening(
  read: Read,
  feed: (bytes: Uint8Array) => void,
  baseURL: string,
  contentType: string,
): Promise<boolean> {
  const parts: Uint8Array[] = []
  let size = 0
  let ended = false
  let verdict: SniffVerdict = isJsonType(contentType) ? 'not-event-stream' : 'undecided'
  while (verdict === 'undecided') {
    const { done, value } = await read()
    if (done) ended = true
    else {
      parts.push(value)
      size += value.byteLength
    }
    verdict = sniffOpening(new TextDecoder().decode(Buffer.concat(parts)), ended, isEventStreamType(contentType))
    if (verdict === 'undecided' && size >= SNIFF_LIMIT_BYTES) verdict = 'event-stream'
  }
  if (verdict === 'event-stream') {
    if (size > 0) feed(Buffer.concat(parts))
    return !ended
  }
  while (!ended && size < SNIPPET_BYTES) {
    const { done, value } = await read()
    if (done) ended = true
    else {
      parts.push(value)
      size += value.byteLength
    }
  }
  throw notEventStreamError(
    baseURL,
    contentType,
    new TextDecoder().decode(Buffer.concat(parts).subarray(0, SNIPPET_BYTES)),
    ended && size <= SNIPPET_BYTES,
  )
}
