/**
 * The request phase's retries (the kit's `withRetries` with this SDK's errors: 529 included, `retry-after` obeyed
 * within `maxRetryDelayMs`) and cancellation: an abort ends a retry wait or a body read at once and closes the socket.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { RetryClock } from '@bridle/llm/adapter-kit'
import { answerEvents, errorBody, textAnswer } from '../src/testing.js'
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

  it('a retry-after that is neither seconds nor a date (-5) waits the default backoff, not zero', async () => {
    const clock = recordingClock()
    h = await bootAdapter(
      [
        {
          kind: 'http-error',
          status: 529,
          body: errorBody('overloaded_error', 'Overloaded'),
          headers: { 'retry-after': '-5' },
        },
        { kind: 'sse', events: textAnswer(['later']) },
      ],
      { maxRetries: 1 },
      clock,
    )
    expect((await run(h.ctx)).message.content).toEqual([{ type: 'text', text: 'later' }])
    expect(clock.waits).toEqual([500])
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
