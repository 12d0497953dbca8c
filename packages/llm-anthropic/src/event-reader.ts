/**
 * The bounded Server-Sent Events reader of one response (README.md#bounds). The SDK's own stream iterator treats a
 * body that ends early as the end of the answer and has no stall or size bounds, so the adapter frames the body
 * itself with `eventsource-parser` and bounds it four ways: an idle timer re-armed by any byte, a data deadline
 * re-armed only when the caller reports progress (so `ping`s and empty events cannot keep a call alive), the call's
 * total deadline, and caps on the response's bytes and on one line or event.
 */
import { LlmError } from '@bridle/llm'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { abortError, startDeadline, type Deadline } from './deadlines.js'

/** One dispatched SSE event with non-blank data. */
export interface SseEvent {
  event?: string
  data: string
}

export interface EventReaderOptions {
  idleTimeoutMs: number
  dataTimeoutMs: number
  /** The call's whole-response deadline, started before the request. */
  total: Deadline
  maxResponseBytes: number
  maxLineBytes: number
  baseURL: string
  signal: AbortSignal
}

const LF = 0x0a
const CR = 0x0d

export class EventReader {
  private data: Deadline | undefined
  private bytes = 0
  private lineBytes = 0
  private eventBytes = 0

  constructor(
    private readonly body: ReadableStream<Uint8Array>,
    private readonly options: EventReaderOptions,
  ) {}

  /** The caller saw content: the wait for the next content starts again at the next read. */
  progress(): void {
    this.data?.clear()
    this.data = undefined
  }

  /** Yields the body's events in order; ends when the body ends. Stopping the iteration cancels the body. */
  async *events(): AsyncGenerator<SseEvent, void, undefined> {
    const reader = this.body.getReader()
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
        const { done, value } = await this.read(reader)
        if (done) {
          parser.feed(decoder.decode())
          break
        }
        this.measure(value)
        parser.feed(decoder.decode(value, { stream: true }))
      }
      while (queue.length > 0) yield queue.shift()!
    } finally {
      this.progress()
      reader.cancel().catch(() => {})
    }
  }

  /** One read, raced against the idle timer, the data and total deadlines, and the signal. */
  private async read(reader: ReadableStreamDefaultReader<Uint8Array>) {
    const { options } = this
    this.data ??= startDeadline(
      options.dataTimeoutMs,
      () =>
        new LlmError(
          `event stream from ${options.baseURL} sent no content for ${options.dataTimeoutMs}ms (pings only)`,
          'TIMEOUT',
        ),
    )
    const idle = startDeadline(
      options.idleTimeoutMs,
      () => new LlmError(`event stream from ${options.baseURL} idle for ${options.idleTimeoutMs}ms`, 'TIMEOUT'),
    )
    const read = reader.read()
    read.catch(() => {})
    let onAbort: (() => void) | undefined
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(abortError(options.signal))
      if (options.signal.aborted) onAbort()
      else options.signal.addEventListener('abort', onAbort, { once: true })
    })
    aborted.catch(() => {})
    try {
      return await Promise.race([read, idle.expired, this.data.expired, options.total.expired, aborted])
    } finally {
      idle.clear()
      options.signal.removeEventListener('abort', onAbort!)
    }
  }

  /** Counts the slice against the response cap and the line and event caps (an event ends at a blank line). */
  private measure(slice: Uint8Array): void {
    const { options } = this
    this.bytes += slice.byteLength
    if (this.bytes > options.maxResponseBytes) {
      throw new LlmError(
        `response from ${options.baseURL} exceeded ${options.maxResponseBytes} bytes (maxResponseBytes)`,
        'RESPONSE_TOO_LARGE',
      )
    }
    for (let i = 0; i < slice.length; i++) {
      const byte = slice[i]!
      if (byte === LF || byte === CR) {
        if (this.lineBytes === 0 && byte === LF && slice[i - 1] !== CR) this.eventBytes = 0
        else if (this.lineBytes === 0 && byte === CR) this.eventBytes = 0
        this.lineBytes = 0
        continue
      }
      this.lineBytes++
      this.eventBytes++
      if (this.lineBytes > options.maxLineBytes || this.eventBytes > options.maxLineBytes) {
        throw new LlmError(
          `event stream from ${options.baseURL} sent ${this.lineBytes > options.maxLineBytes ? 'a line' : 'an event'} longer than ${options.maxLineBytes} bytes`,
          'MALFORMED_RESPONSE',
        )
      }
    }
  }
}
