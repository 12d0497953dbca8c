/**
 * Retry bounds (issue 14 item 5): the wait between attempts is capped, a longer `Retry-After` ends the
 * retries instead of stalling the turn, and a wait ends on cancel or dispose. Waits are observed through
 * an injected clock, never measured.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { abortableSleep } from '@bridle/llm/adapter-kit'
import { resolveConfig } from '../src/index.js'
import type { RetryClock } from '@bridle/llm/adapter-kit'
import { textEvents, type MockBehaviour } from '../src/testing.js'
import { boot, bootAdapter, failureOf, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

/** A clock whose sleeps return at once and are recorded. */
function recordingClock(random = 0): RetryClock & { waits: number[] } {
  const waits: number[] = []
  return {
    waits,
    sleep: async (ms) => void waits.push(ms),
    random: () => random,
    now: () => Date.parse('2030-01-01T00:00:00Z'),
  }
}

const limited = (headers: Record<string, string>): MockBehaviour => ({
  kind: 'http-error',
  status: 429,
  body: { error: { message: 'Rate limit reached' } },
  headers,
})
const busy = (headers: Record<string, string> = {}): MockBehaviour => ({
  kind: 'http-error',
  status: 503,
  body: { error: { message: 'busy' } },
  headers,
})

describe('retry delay cap', () => {
  it('Retry-After: 3600 does not stall the turn: no retry, RATE_LIMIT at once with the requested wait', async () => {
    // real timers and the default cap (60 s): an adapter that honoured the header would hit the test timeout
    h = await boot([limited({ 'retry-after': '3600' })], { maxRetries: 2 })
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure).toEqual({
      code: 'RATE_LIMIT',
      message: 'Rate limit reached',
      status: 429,
      providerRetryAfterMs: 3_600_000,
    })
    expect(h.server.requests).toHaveLength(1)
  }, 10_000)

  it('a server-requested wait within the cap is waited exactly; beyond the cap the retries end', async () => {
    const clock = recordingClock()
    h = await bootAdapter(
      [
        busy({ 'retry-after': '2' }),
        limited({ 'retry-after-ms': '150' }),
        limited({ 'retry-after': 'Tue, 01 Jan 2030 00:00:30 GMT' }),
        busy({ 'retry-after': '31' }),
      ],
      { maxRetries: 5, maxRetryDelayMs: 30_000 },
      clock,
    )
    expect(failureOf((await run(h.ctx)).finish)).toMatchObject({ code: 'SERVER', providerRetryAfterMs: 31_000 })
    expect(clock.waits).toEqual([2000, 150, 30_000])
    expect(h.server.requests).toHaveLength(4)
  })

  it('without a header: 0.5 s doubling backoff with jitter, capped by maxRetryDelayMs', async () => {
    const clock = recordingClock(1)
    h = await bootAdapter(
      [busy(), busy(), busy(), busy(), { kind: 'sse', events: textEvents(['ok']) }],
      { maxRetries: 4, maxRetryDelayMs: 1200 },
      clock,
    )
    expect((await run(h.ctx)).finish).toEqual({ kind: 'stop' })
    // 500, 1000, 2000, 4000 ms scaled by the largest jitter (×0.75), then capped at 1200 ms
    expect(clock.waits).toEqual([375, 750, 1200, 1200])
  })

  it('x-should-retry: false stops at once; 4xx other than 408/409/429 is never retried; maxRetries bounds the attempts', async () => {
    const clock = recordingClock()
    h = await bootAdapter(
      [
        busy({ 'x-should-retry': 'false' }),
        { kind: 'http-error', status: 400, body: { error: { message: 'bad' } } },
        busy(),
        busy(),
      ],
      { maxRetries: 1 },
      clock,
    )
    expect(failureOf((await run(h.ctx)).finish).code).toBe('SERVER')
    expect(failureOf((await run(h.ctx)).finish).code).toBe('INVALID_REQUEST')
    expect(failureOf((await run(h.ctx)).finish).code).toBe('SERVER')
    expect(clock.waits).toHaveLength(1)
    expect(h.server.requests).toHaveLength(4)
  })

  it('each attempt says which retry it is (x-stainless-retry-count), as the SDK does', async () => {
    h = await bootAdapter([busy(), { kind: 'sse', events: textEvents(['ok']) }], { maxRetries: 1 }, recordingClock())
    await run(h.ctx)
    expect(h.server.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1'])
  })

  it('the config refuses a negative cap, naming the field', () => {
    expect(() => resolveConfig({ maxRetryDelayMs: -1 })).toThrow(/^llm-openai: invalid config: maxRetryDelayMs: /)
  })
})

describe('a retry wait ends on cancel and on dispose', () => {
  /** Real sleeps, but the test learns when one starts. */
  function watchedClock() {
    let started!: (ms: number) => void
    const sleeping = new Promise<number>((resolve) => (started = resolve))
    const clock: RetryClock = {
      sleep: (ms, signal) => {
        started(ms)
        return abortableSleep(ms, signal)
      },
      random: Math.random,
      now: Date.now,
    }
    return { clock, sleeping }
  }

  it('dispose during a 30 s wait: ABORTED naming the disposed route, no second request', async () => {
    const { clock, sleeping } = watchedClock()
    const booted = await bootAdapter([limited({ 'retry-after': '30' })], { maxRetries: 1 }, clock)
    h = booted
    const pending = run(booted.ctx)
    expect(await sleeping).toBe(30_000)
    booted.adapter.dispose()
    const r = await pending
    expect(r.finish).toEqual({
      kind: 'aborted',
      failure: { code: 'ABORTED', message: 'request aborted: the mock route was disposed' },
    })
    expect(booted.server.requests).toHaveLength(1)
    // a disposed adapter takes no new calls
    expect(failureOf((await run(booted.ctx)).finish)).toEqual({
      code: 'ABORTED',
      message: 'request aborted: the mock route was disposed',
    })
    expect(booted.server.requests).toHaveLength(1)
  }, 10_000)

  it('cancel during a 30 s wait: ABORTED at once', async () => {
    const { clock, sleeping } = watchedClock()
    h = await bootAdapter([limited({ 'retry-after': '30' })], { maxRetries: 1 }, clock)
    const controller = new AbortController()
    const pending = run(h.ctx, { signal: controller.signal })
    await sleeping
    controller.abort()
    expect((await pending).finish).toEqual({
      kind: 'aborted',
      failure: { code: 'ABORTED', message: 'request aborted' },
    })
  }, 10_000)
})
