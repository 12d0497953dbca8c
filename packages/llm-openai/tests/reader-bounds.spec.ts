/**
 * Bounds of the SSE reader (issue 14 item 5, issue 38 item 4): a budget for progress that keep-alives and events the
 * consumer does not count never restore, a cap on the response's bytes, and a cap on line and event size that stops
 * reading in bounded memory. Fake timers drive the deadlines; byte counts, not clocks, show the memory bound.
 */
import './setup.js'
import { LlmError, ProgressBudget, ResponseMeter } from '@bridle/llm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readSseEvents, type EventReaderOptions, type SseEvent } from '../src/event-stream.js'
import { LineMeter } from '../src/line-meter.js'

const enc = (s: string) => new TextEncoder().encode(s)
const budget = (ms: number) => new ProgressBudget(ms, 'http://mock')

afterEach(() => {
  vi.useRealTimers()
})

/** A body whose every pull waits `delayMs` (fake timers) and then delivers the next item of `next()`. */
function pacedBody(next: (n: number) => string | undefined, delayMs: number): ReadableStream<Uint8Array> {
  let n = 0
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, delayMs))
        const item = next(n++)
        if (item === undefined) controller.close()
        else controller.enqueue(enc(item))
      },
    },
    { highWaterMark: 0 },
  )
}

async function drain(
  body: ReadableStream<Uint8Array>,
  options: Partial<EventReaderOptions>,
  onEvent?: (e: SseEvent) => Promise<void>,
) {
  const events: SseEvent[] = []
  for await (const e of readSseEvents(body, { idleTimeoutMs: 60_000, baseURL: 'http://mock', ...options })) {
    events.push(e)
    await onEvent?.(e)
  }
  return events
}

describe('deadline for the next data event', () => {
  it('a body of keep-alives only ends with TIMEOUT, though the idle watchdog stays quiet', async () => {
    vi.useFakeTimers()
    const body = pacedBody(() => ': keep-alive\n\n', 10)
    const result = drain(body, { idleTimeoutMs: 50, dataBudget: budget(1000) }).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(1000)
    const error = await result
    expect(error).toBeInstanceOf(LlmError)
    expect(error).toMatchObject({
      code: 'TIMEOUT',
      message: 'event stream from http://mock sent nothing new for 1000ms (keep-alives and empty events do not count)',
    })
    expect(vi.getTimerCount()).toBe(0)
  })

  it('each event the consumer counts as progress restores it, and the consumer’s own time does not count', async () => {
    vi.useFakeTimers()
    // a data event after every 4 keep-alives (50 ms apart at 10 ms each); the deadline is 100 ms
    const body = pacedBody((n) => (n >= 30 ? undefined : n % 5 === 4 ? `data: ${n}\n\n` : ': ka\n\n'), 10)
    const dataBudget = budget(100)
    const result = drain(body, { dataBudget }, async () => {
      dataBudget.progress()
      // the consumer holds every event for 5 s
      await new Promise((resolve) => setTimeout(resolve, 5000))
    })
    await vi.advanceTimersByTimeAsync(30 * 10 + 6 * 5000 + 100)
    expect((await result).map((e) => e.data)).toEqual(['4', '9', '14', '19', '24', '29'])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a consumer that stops early, and an abort during a wait, leave no timer behind', async () => {
    vi.useFakeTimers()
    const body = pacedBody((n) => (n === 0 ? 'data: first\n\n' : ': ka\n\n'), 10)
    const iterator = readSseEvents(body, { idleTimeoutMs: 50, dataBudget: budget(1000), baseURL: 'x' })
    const first = iterator.next()
    await vi.advanceTimersByTimeAsync(10)
    expect((await first).value).toEqual({ data: 'first' })
    await iterator.return()
    expect(vi.getTimerCount()).toBe(0)

    const controller = new AbortController()
    const waiting = readSseEvents(
      pacedBody(() => ': ka\n\n', 10),
      { idleTimeoutMs: 50, dataBudget: budget(1000), baseURL: 'x', signal: controller.signal },
    )
    const pending = waiting.next()
    await vi.advanceTimersByTimeAsync(35)
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED', message: 'request aborted' })
    // only the body's own pending pull timer may remain; it belongs to the test body, not the reader
    await vi.advanceTimersByTimeAsync(10)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('data events that carry nothing do not restore it: a stream of empty deltas ends within the budget', async () => {
    vi.useFakeTimers()
    const empty = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {} }] })}\n\n`
    const body = pacedBody(() => empty, 100)
    const seen: SseEvent[] = []
    // the consumer (the adapter) counts none of them as progress
    const result = drain(body, { idleTimeoutMs: 2000, dataBudget: budget(3000) }, async (e) => void seen.push(e)).catch(
      (e: unknown) => e,
    )
    await vi.advanceTimersByTimeAsync(3000)
    expect(await result).toMatchObject({ code: 'TIMEOUT', bound: 'data' })
    expect(seen.length).toBeGreaterThanOrEqual(28)
    expect(seen.length).toBeLessThanOrEqual(30)
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('response size cap', () => {
  it('an endless stream of data ends with RESPONSE_TOO_LARGE once its bytes pass the cap', async () => {
    let pulled = 0
    const event = enc(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'more ' } }] })}\n\n`)
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled += event.byteLength
          if (pulled > 1024 * 1024) controller.error(new Error('test body: the reader kept pulling'))
          else controller.enqueue(event)
        },
      },
      { highWaterMark: 0 },
    )
    const seen: SseEvent[] = []
    const error = await drain(
      body,
      { responseMeter: new ResponseMeter(64 * 1024, 'http://mock') },
      async (e) => void seen.push(e),
    ).catch((e: unknown) => e)
    expect(error).toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
      message: 'event stream from http://mock passed 65536 bytes without finishing (maxResponseBytes)',
    })
    expect(pulled).toBeGreaterThan(64 * 1024)
    expect(pulled).toBeLessThanOrEqual(64 * 1024 + event.byteLength)
    expect(seen.length).toBe(Math.floor((64 * 1024) / event.byteLength))
  })
})

describe('line and event size cap', () => {
  /** An endless body of `fill` after `head`, counting the bytes the reader pulled. */
  function endless(head: string, fill: string) {
    const pulled = { bytes: 0 }
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          const bytes = enc(pulled.bytes === 0 ? head : fill)
          pulled.bytes += bytes.byteLength
          // a reader without a cap would pull forever; end the test body long before memory runs out
          if (pulled.bytes > 64 * 1024 * 1024) controller.error(new Error('test body: the reader kept pulling'))
          else controller.enqueue(bytes)
        },
      },
      { highWaterMark: 0 },
    )
    return { body, pulled }
  }

  it('a line that never ends stops the reader just past the cap (bounded memory)', async () => {
    const { body, pulled } = endless('data: ', 'x'.repeat(16 * 1024))
    const error = await drain(body, { maxLineBytes: 64 * 1024 }).catch((e: unknown) => e)
    expect(error).toMatchObject({
      code: 'MALFORMED_RESPONSE',
      message: 'event stream from http://mock sent a line longer than 65536 bytes',
    })
    expect(pulled.bytes).toBeLessThanOrEqual(64 * 1024 + 16 * 1024 + 6)
  })

  it('an event of many short data lines and no blank line is capped too; comment lines do not count', async () => {
    const { body, pulled } = endless('data: start\n', `data: ${'y'.repeat(1000)}\n`)
    const error = await drain(body, { maxLineBytes: 64 * 1024 }).catch((e: unknown) => e)
    expect(error).toMatchObject({
      code: 'MALFORMED_RESPONSE',
      message: 'event stream from http://mock sent an event longer than 65536 bytes',
    })
    expect(pulled.bytes).toBeLessThanOrEqual(64 * 1024 + 2 * 1007)

    const comments = enc(`${': ping\n'.repeat(20_000)}data: ok\n\n`)
    expect(await drain(new Response(comments).body!, { maxLineBytes: 1024 })).toEqual([{ data: 'ok' }])
  })

  it('lines and events up to the cap pass, with LF and CRLF endings', async () => {
    const data = 'z'.repeat(1024 - 'data: '.length)
    for (const nl of ['\n', '\r\n']) {
      const text = `data: ${data}${nl}${nl}data: a${nl}data: b${nl}${nl}`
      expect(await drain(new Response(enc(text)).body!, { maxLineBytes: 1024 })).toEqual([{ data }, { data: 'a\nb' }])
    }
  })

  it('LineMeter: a CRLF split across two slices is one terminator; a blank line resets the event', () => {
    const meter = new LineMeter(10)
    expect(meter.feed(enc('data:1234\r'))).toBeUndefined()
    expect(meter.feed(enc('\n\r\ndata:5678\n'))).toBeUndefined()
    expect(meter.feed(enc('d'))).toBeUndefined()
    expect(meter.feed(enc('d'))).toBe('event')
    const cr = new LineMeter(10)
    expect(cr.feed(enc('data:12\rda\r\r'))).toBeUndefined()
    expect(cr.feed(enc('data:12345'))).toBeUndefined()
    expect(cr.feed(enc('6'))).toBe('line')
    expect(new LineMeter(4).feed(enc(': long comment'))).toBe('line')
  })
})
