/**
 * Body bounds over a real socket (issue 14 item 5, issue 18): keep-alives that never deliver data, a line
 * that never ends, and 2xx answers that are not event streams — each a clear error, each closing the
 * connection.
 */
import { LlmRuntime } from '@bridle/llm'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import * as llmOpenai from '../src/index.js'
import {
  startMockServer,
  textEvents,
  KEEPALIVE,
  chunk,
  encodeSseItem,
  type MockBehaviour,
  type MockServer,
} from '../src/testing.js'
import { boot, failureOf, request, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

describe('a stream that never delivers data', () => {
  it('keep-alives forever → TIMEOUT after streamDataTimeoutMs, though bytes keep arriving; the socket is closed', async () => {
    h = await boot([{ kind: 'repeat', events: [chunk({ content: 'partial' })], item: KEEPALIVE, intervalMs: 5 }], {
      streamIdleTimeoutMs: 60_000,
      streamDataTimeoutMs: 150,
    })
    const r = await run(h.ctx)
    expect(r.chunks[0]).toEqual({ type: 'block-start', index: 0, blockType: 'text' })
    expect(failureOf(r.finish)).toEqual({
      code: 'TIMEOUT',
      message: `event stream from ${h.server.url} sent nothing new for 150ms (keep-alives and empty events do not count)`,
    })
    await h.server.requests[0]!.disconnected
  }, 10_000)
})

describe('a stream that never ends (issue 38 item 4)', () => {
  const emptyDelta = chunk({})

  it('empty deltas forever do not re-arm streamDataTimeoutMs: TIMEOUT, and the socket is closed', async () => {
    h = await boot([{ kind: 'repeat', events: [chunk({ content: 'partial' })], item: emptyDelta, intervalMs: 10 }], {
      streamIdleTimeoutMs: 200,
      streamDataTimeoutMs: 300,
    })
    const r = await run(h.ctx)
    expect(r.chunks.filter((c) => c.type === 'text-delta')).toEqual([{ type: 'text-delta', index: 0, text: 'partial' }])
    expect(r.finish).toMatchObject({ kind: 'error' })
    expect(failureOf(r.finish)).toEqual({
      code: 'TIMEOUT',
      message: `event stream from ${h.server.url} sent nothing new for 300ms (keep-alives and empty events do not count)`,
    })
    await h.server.requests[0]!.disconnected
  }, 10_000)

  it('text forever ends at streamTotalTimeoutMs with the partial answer and TIMEOUT', async () => {
    h = await boot([{ kind: 'repeat', item: chunk({ content: 'more ' }), intervalMs: 5 }], {
      streamIdleTimeoutMs: 200,
      streamDataTimeoutMs: 300,
      streamTotalTimeoutMs: 400,
    })
    const r = await run(h.ctx)
    expect(r.chunks.some((c) => c.type === 'text-delta')).toBe(true)
    expect(r.chunks.some((c) => c.type === 'block-end')).toBe(false)
    expect(failureOf(r.finish)).toEqual({
      code: 'TIMEOUT',
      message: `model call to ${h.server.url} did not finish within 400ms (streamTotalTimeoutMs)`,
    })
    await h.server.requests[0]!.disconnected
  }, 10_000)

  it('the total deadline also bounds a request that never gets its headers', async () => {
    h = await boot([{ kind: 'hang' }], { timeoutMs: 60_000, streamTotalTimeoutMs: 200 })
    expect(failureOf((await run(h.ctx)).finish)).toEqual({
      code: 'TIMEOUT',
      message: `model call to ${h.server.url} did not finish within 200ms (streamTotalTimeoutMs)`,
    })
    await h.server.requests[0]!.disconnected
  }, 10_000)

  it('text forever ends at maxResponseBytes with RESPONSE_TOO_LARGE; the answer is bounded by the cap', async () => {
    const item = chunk({ content: 'more ' })
    const eventBytes = Buffer.byteLength(encodeSseItem(item))
    h = await boot([{ kind: 'repeat', item, intervalMs: 0 }], { maxResponseBytes: 32 * 1024 })
    const r = await run(h.ctx)
    expect(failureOf(r.finish)).toEqual({
      code: 'RESPONSE_TOO_LARGE',
      message: `event stream from ${h.server.url} passed 32768 bytes without finishing (maxResponseBytes)`,
    })
    expect(r.chunks.filter((c) => c.type === 'text-delta').length).toBeLessThanOrEqual(
      Math.ceil((32 * 1024) / eventBytes),
    )
    await h.server.requests[0]!.disconnected
  }, 10_000)
})

describe('SSE line cap', () => {
  it('a line that never ends → MALFORMED_RESPONSE naming the cap; reading stops and the socket is closed', async () => {
    h = await boot(
      [{ kind: 'repeat', events: [{ raw: 'data: ' }], item: { raw: 'x'.repeat(16 * 1024) }, intervalMs: 2 }],
      {
        maxLineBytes: 64 * 1024,
      },
    )
    expect(failureOf((await run(h.ctx)).finish)).toEqual({
      code: 'MALFORMED_RESPONSE',
      message: `event stream from ${h.server.url} sent a line longer than 65536 bytes`,
    })
    await h.server.requests[0]!.disconnected
  }, 10_000)

  it('a large line within the cap is read normally', async () => {
    const big = 'b'.repeat(200_000)
    h = await boot([{ kind: 'sse', events: textEvents([big]), chunkBytes: 4096 }], { maxLineBytes: 256 * 1024 })
    const r = await run(h.ctx)
    expect(r.finish).toEqual({ kind: 'stop' })
    expect(r.message.content).toEqual([{ type: 'text', text: big }])
  })
})

describe('a 2xx answer that is not an event stream', () => {
  const page = (contentType: string, body: string): MockBehaviour => ({
    kind: 'http-error',
    status: 200,
    body,
    contentType,
  })

  it('an HTML page (a login portal, a proxy error) → "not an event stream (content-type …)" with its text', async () => {
    const html =
      '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title><style>body { color: red }</style></head>\n' +
      '<body><h1>502 Bad Gateway</h1><script>alert(1)</script><hr>nginx</body></html>'
    h = await boot([page('text/html; charset=utf-8', html)])
    const r = await run(h.ctx)
    expect(failureOf(r.finish)).toEqual({
      code: 'MALFORMED_RESPONSE',
      message: `response from ${h.server.url} is not an event stream (content-type text/html; charset=utf-8): 502 Bad Gateway 502 Bad Gateway nginx`,
    })
    expect(r.chunks).toHaveLength(1)
  })

  it('plain text with control characters is shown sanitized, on one line, cut to 120 characters', async () => {
    h = await boot([page('text/plain', `upstream\u001b[31m says\r\n\tno ${'z'.repeat(300)}`)])
    const message = failureOf((await run(h.ctx)).finish).message
    expect(message).toMatch(
      new RegExp(
        `^response from ${h.server.url} is not an event stream \\(content-type text/plain\\): upstream \\[31m says no z+…$`,
      ),
    )
    expect(message.split(': ').at(-1)).toHaveLength(120)
    expect(message).not.toMatch(/[\u0000-\u001f]/)
  })

  it('a body without a content type, and an empty 200, are named too', async () => {
    h = await boot([page('', 'Service Unavailable'), page('text/html', '')])
    expect(failureOf((await run(h.ctx)).finish).message).toBe(
      `response from ${h.server.url} is not an event stream (content-type none): Service Unavailable`,
    )
    expect(failureOf((await run(h.ctx)).finish).message).toBe(
      `response from ${h.server.url} is not an event stream (content-type text/html): (empty body)`,
    )
  })

  it('an event stream with a wrong or missing label is still read (some servers mislabel streams)', async () => {
    const text = textEvents(['mis', 'labeled']).map(encodeSseItem).join('')
    for (const contentType of ['text/plain', 'application/octet-stream', '']) {
      h = await boot([page(contentType, `\uFEFF${text}`)])
      const r = await run(h.ctx)
      expect(r.finish).toEqual({ kind: 'stop' })
      expect(r.message.content).toEqual([{ type: 'text', text: 'mislabeled' }])
      await teardown(h)
      h = undefined
    }
  })

  it('a stream that opens with a keep-alive comment, or split into 1-byte reads, passes the check', async () => {
    h = await boot([{ kind: 'sse', events: [KEEPALIVE, ...textEvents(['ok'])], chunkBytes: 1 }])
    expect((await run(h.ctx)).finish).toEqual({ kind: 'stop' })
  })
})

describe('disposing the plugin ends its calls in flight', () => {
  let server: MockServer | undefined
  afterEach(async () => server?.close())

  it('mid-body: ABORTED naming the disposed route; the socket is closed', async () => {
    server = await startMockServer([{ kind: 'hang', events: [chunk({ content: 'partial' })] }])
    process.env.BRIDLE_DISPOSE_KEY = 'sk-dispose-0123456789'
    const ctx = new Context()
    ctx.plugin(LlmRuntime)
    const fork = ctx.plugin(llmOpenai, {
      provider: 'mock',
      baseURL: server.url,
      apiKeyEnv: 'BRIDLE_DISPOSE_KEY',
      maxRetries: 0,
    })
    let finish: unknown
    try {
      for await (const c of ctx.llm.stream(request())) {
        if (c.type === 'text-delta') fork.dispose()
        if (c.type === 'finish') finish = c.reason
      }
    } finally {
      delete process.env.BRIDLE_DISPOSE_KEY
    }
    expect(finish).toEqual({
      kind: 'aborted',
      failure: { code: 'ABORTED', message: 'request aborted: the mock route was disposed' },
    })
    await server.requests[0]!.disconnected
  })
})
