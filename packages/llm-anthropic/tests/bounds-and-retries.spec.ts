import { afterEach, describe, expect, it } from 'vitest'
import { PING, answerEvents, errorBody, messageStart, textAnswer, type MessagesSseItem } from '../src/testing.js'
import type { RetryClock } from '../src/retries.js'
import { boot, bootAdapter, failureOf, request, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h, { strict: false })
  h = undefined
})

/** A clock whose sleeps resolve at once and are recorded. */
function recordingClock(): RetryClock & { waits: number[] } {
  const waits: number[] = []
  return {
    waits,
    sleep: async (ms) => void waits.push(ms),
    random: () => 0,
    now: () => Date.parse('2026-01-01T00:00:00Z'),
  }
}

const textDelta = (text: string): MessagesSseItem => ({
  event: 'content_block_delta',
  data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
})
const emptyDelta: MessagesSseItem = {
  event: 'content_block_delta',
  data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '' } },
}
/** `message_start`, `ping` and an open text block with `first` in it. */
const opening = (first: string) =>
  answerEvents([{ type: 'text', fragments: [first] }], { cutAfterBlocks: true }).slice(0, 4)

describe('retries before the first chunk', () => {
  it('retries a 529 and succeeds, with no duplicated chunks', async () => {
    const clock = recordingClock()
    h = await bootAdapter(
      [
        { kind: 'http-error', status: 529, body: errorBody('overloaded_error', 'Overloaded') },
        { kind: 'sse', events: textAnswer(['once']) },
      ],
      { maxRetries: 1 },
      clock,
    )
    const result = await run(h.ctx)
    expect(result.message.content).toEqual([{ type: 'text', text: 'once' }])
    expect(h.server.requests).toHaveLength(2)
    expect(h.server.requests[1]!.headers['x-stainless-retry-count']).toBe('1')
    expect(clock.waits).toEqual([500])
  })

  it('waits what retry-after asks, then reports RATE_LIMIT when the retries are used up', async () => {
    const clock = recordingClock()
    const limited = {
      kind: 'http-error' as const,
      status: 429,
      body: errorBody('rate_limit_error', 'slow'),
      headers: { 'retry-after': '2' },
    }
    h = await bootAdapter([limited, limited], { maxRetries: 1 }, clock)
    expect(failureOf((await run(h.ctx)).finish)).toMatchObject({ code: 'RATE_LIMIT', providerRetryAfterMs: 2000 })
    expect(clock.waits).toEqual([2000])
    expect(h.server.requests).toHaveLength(2)
  })

  it('does not retry when the server asks for a wait beyond maxRetryDelayMs', async () => {
    const clock = recordingClock()
    h = await bootAdapter(
      [
        {
          kind: 'http-error',
          status: 429,
          body: errorBody('rate_limit_error', 'slow'),
          headers: { 'retry-after': '3600' },
        },
      ],
      { maxRetries: 3, maxRetryDelayMs: 60_000 },
      clock,
    )
    expect(failureOf((await run(h.ctx)).finish)).toMatchObject({ code: 'RATE_LIMIT', providerRetryAfterMs: 3_600_000 })
    expect(clock.waits).toEqual([])
  })

  it('does not retry a 400, and obeys x-should-retry: false on a 500', async () => {
    const clock = recordingClock()
    h = await bootAdapter(
      [
        { kind: 'http-error', status: 400, body: errorBody('invalid_request_error', 'bad') },
        { kind: 'http-error', status: 500, body: errorBody('api_error', 'x'), headers: { 'x-should-retry': 'false' } },
      ],
      { maxRetries: 2 },
      clock,
    )
    expect(failureOf((await run(h.ctx)).finish).code).toBe('INVALID_REQUEST')
    expect(failureOf((await run(h.ctx)).finish).code).toBe('SERVER')
    expect(h.server.requests).toHaveLength(2)
  })

  it('ends a retry wait at once when the call is aborted', async () => {
    h = await bootAdapter(
      [
        {
          kind: 'http-error',
          status: 529,
          body: errorBody('overloaded_error', 'Overloaded'),
          headers: { 'retry-after': '30' },
        },
      ],
      { maxRetries: 1 },
    )
    const controller = new AbortController()
    const pending = run(h.ctx, { signal: controller.signal })
    await h.server.waitForRequests(1)
    setTimeout(() => controller.abort(), 50)
    expect((await pending).finish.kind).toBe('aborted')
  })
})

describe('time and size bounds of a response', () => {
  it('headers that never come: TIMEOUT after timeoutMs', async () => {
    h = await boot([{ kind: 'hang' }], { timeoutMs: 200 })
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure.code).toBe('TIMEOUT')
    expect(failure.message).toContain('timed out after 200ms')
  })

  it('a body that falls silent: TIMEOUT after streamIdleTimeoutMs, the partial text kept', async () => {
    h = await boot([{ kind: 'hang', events: opening('so far') }], { streamIdleTimeoutMs: 200 })
    const result = await run(h.ctx)
    expect(failureOf(result.finish).message).toContain('idle for 200ms')
    expect(result.message.content).toEqual([{ type: 'text', text: 'so far' }])
  })

  it('pings forever do not re-arm the data deadline', async () => {
    h = await boot([{ kind: 'repeat', events: opening('x'), repeat: PING, everyMs: 30 }], {
      streamIdleTimeoutMs: 5000,
      streamDataTimeoutMs: 300,
    })
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure).toMatchObject({ code: 'TIMEOUT' })
    expect(failure.message).toContain('sent no content for 300ms')
  })

  it('empty deltas forever do not re-arm the data deadline either', async () => {
    h = await boot([{ kind: 'repeat', events: opening('x'), repeat: emptyDelta, everyMs: 30 }], {
      streamDataTimeoutMs: 300,
    })
    expect(failureOf((await run(h.ctx)).finish).message).toContain('sent no content')
  })

  it('text forever ends at streamTotalTimeoutMs as an error turn with the text so far', async () => {
    h = await boot([{ kind: 'repeat', events: opening('a'), repeat: textDelta('b'), everyMs: 20 }], {
      streamTotalTimeoutMs: 400,
    })
    const result = await run(h.ctx)
    expect(failureOf(result.finish)).toMatchObject({ code: 'TIMEOUT' })
    expect(failureOf(result.finish).message).toContain('took longer than 400ms (streamTotalTimeoutMs)')
    const text = (result.message.content[0] as { text: string }).text
    expect(text.startsWith('ab')).toBe(true)
  })

  it('a response over maxResponseBytes ends as RESPONSE_TOO_LARGE', async () => {
    h = await boot([{ kind: 'repeat', events: opening('a'), repeat: textDelta('y'.repeat(500)), everyMs: 1 }], {
      maxResponseBytes: 4096,
    })
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure.code).toBe('RESPONSE_TOO_LARGE')
    expect(failure.message).toContain('exceeded 4096 bytes (maxResponseBytes)')
  })

  it('a line longer than maxLineBytes is MALFORMED_RESPONSE', async () => {
    h = await boot([{ kind: 'sse', events: [messageStart(), { raw: `data: ${'z'.repeat(1000)}` }] }], {
      maxLineBytes: 512,
    })
    expect(failureOf((await run(h.ctx)).finish).message).toContain('a line longer than 512 bytes')
  })
})

describe('cancellation', () => {
  it('an abort mid-body closes the socket', async () => {
    h = await boot([{ kind: 'hang', events: opening('x') }])
    const controller = new AbortController()
    const pending = run(h.ctx, { signal: controller.signal })
    await h.server.waitForRequests(1)
    setTimeout(() => controller.abort(), 50)
    expect((await pending).finish.kind).toBe('aborted')
    await h.server.requests[0]!.disconnected
  })

  it('a consumer that stops early closes the socket', async () => {
    h = await boot([{ kind: 'hang', events: opening('x') }])
    for await (const chunk of h.ctx.llm.stream(request())) if (chunk.type === 'text-delta') break
    await h.server.requests[0]!.disconnected
  })
})
