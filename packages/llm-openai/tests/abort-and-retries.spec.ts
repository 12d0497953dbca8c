import type { StreamChunk } from '@bridle/llm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { chunk, textEvents } from '../src/testing.js'
import { boot, failureOf, request, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await teardown(h)
  h = undefined
})

describe('SDK retries (before the first chunk only)', () => {
  it('[503, sse] with maxRetries 1 → success after two requests, no duplicated chunks', async () => {
    h = await boot(
      [
        { kind: 'http-error', status: 503, body: { error: { message: 'busy' } }, headers: { 'retry-after-ms': '10' } },
        { kind: 'sse', events: textEvents(['once']) },
      ],
      { maxRetries: 1 },
    )
    const r = await run(h.ctx)
    expect(r.finish).toEqual({ kind: 'stop' })
    expect(h.server.requests).toHaveLength(2)
    expect(r.chunks.filter((c) => c.type === 'text-delta')).toEqual([{ type: 'text-delta', index: 0, text: 'once' }])
    expect(h.server.requests[1]!.rawBody).toBe(h.server.requests[0]!.rawBody)
  })

  it('[429 retry-after 0, 429] → RATE_LIMIT after two requests', async () => {
    const limited = {
      kind: 'http-error' as const,
      status: 429,
      body: { error: { message: 'Rate limit reached' } },
      headers: { 'retry-after': '0' },
    }
    h = await boot([limited, limited], { maxRetries: 1 })
    expect(failureOf((await run(h.ctx)).finish)).toMatchObject({
      code: 'RATE_LIMIT',
      status: 429,
      message: 'Rate limit reached',
    })
    expect(h.server.requests).toHaveLength(2)
  })
})

describe('abort', () => {
  it('a pre-aborted signal: aborted finish, zero requests', async () => {
    h = await boot([])
    const r = await run(h.ctx, { signal: AbortSignal.abort() })
    expect(r.finish).toMatchObject({ kind: 'aborted', failure: { code: 'ABORTED' } })
    expect(h.server.requests).toHaveLength(0)
  })

  it('before headers (hanging server): aborted finish, the connection is dropped', async () => {
    h = await boot([{ kind: 'hang' }])
    const controller = new AbortController()
    const pending = run(h.ctx, { signal: controller.signal })
    await h.server.waitForRequests(1)
    controller.abort()
    const r = await pending
    expect(r.finish).toMatchObject({ kind: 'aborted', failure: { code: 'ABORTED', message: 'request aborted' } })
    await h.server.requests[0]!.disconnected
  })

  it('during a long Retry-After backoff: returns promptly instead of sleeping it out', async () => {
    // With a 60 s Retry-After, an adapter that waited out the SDK's sleep would exceed the test timeout.
    h = await boot(
      [{ kind: 'http-error', status: 429, body: { error: { message: 'wait' } }, headers: { 'retry-after': '60' } }],
      { maxRetries: 1 },
    )
    // Abort only once the 429 answer has reached the client, so the SDK is in its backoff sleep.
    const real = globalThis.fetch
    const answered = new Promise<void>((resolve) => {
      vi.spyOn(globalThis, 'fetch').mockImplementation(async (...args: Parameters<typeof fetch>) => {
        const response = await real(...args)
        resolve()
        return response
      })
    })
    const controller = new AbortController()
    const pending = run(h.ctx, { signal: controller.signal })
    await answered
    controller.abort()
    const r = await pending
    expect(r.finish).toMatchObject({ kind: 'aborted', failure: { code: 'ABORTED' } })
    expect(h.server.requests).toHaveLength(1)
  }, 10_000)

  it('mid-body: aborted finish after the partial blocks; the mock sees the disconnect', async () => {
    h = await boot([{ kind: 'hang', events: [chunk({ content: 'partial' })] }])
    const controller = new AbortController()
    const seen: StreamChunk[] = []
    let finish: StreamChunk | undefined
    for await (const c of h.ctx.llm.stream(request({ signal: controller.signal }))) {
      seen.push(c)
      if (c.type === 'text-delta') controller.abort()
      if (c.type === 'finish') finish = c
    }
    expect(seen[0]).toEqual({ type: 'block-start', index: 0, blockType: 'text' })
    expect(finish).toMatchObject({ type: 'finish', reason: { kind: 'aborted', failure: { code: 'ABORTED' } } })
    await h.server.requests[0]!.disconnected
  })

  it('a consumer that stops early closes the socket', async () => {
    h = await boot([{ kind: 'hang', events: [chunk({ content: 'first' })] }])
    for await (const c of h.ctx.llm.stream(request())) {
      if (c.type === 'text-delta') break
    }
    await h.server.requests[0]!.disconnected
  })
})
