import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createUserMessage } from '@bridle/llm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DONE, chunk, textEvents, type MockBehaviour } from '../src/testing.js'
import { boot, failureOf, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

async function failWith(behaviour: MockBehaviour, overrides: Record<string, unknown> = {}) {
  h = await boot([behaviour], overrides)
  const r = await run(h.ctx)
  expect(r.finish.kind).toBe('error')
  return failureOf(r.finish)
}

const httpError = (
  status: number,
  body: string | object,
  extra: Partial<Extract<MockBehaviour, { kind: 'http-error' }>> = {},
) => ({ kind: 'http-error', status, body, ...extra }) as MockBehaviour

describe('HTTP errors → LlmFailure', () => {
  it.each([
    [
      401,
      { error: { message: 'Authentication Fails (no such user)', type: 'authentication_error' } },
      'AUTH',
      'Authentication Fails (no such user)',
    ],
    [403, { error: { message: 'forbidden' } }, 'AUTH', 'forbidden'],
    [402, { error: { message: 'Insufficient Balance', type: 'unknown_error' } }, 'QUOTA', 'Insufficient Balance'],
    [
      429,
      { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } },
      'QUOTA',
      'You exceeded your current quota',
    ],
    [429, { error: { message: 'Rate limit reached' } }, 'RATE_LIMIT', 'Rate limit reached'],
    [
      400,
      {
        error: {
          message: "This model's maximum context length is 131072 tokens. However, you requested 200000 tokens",
          type: 'invalid_request_error',
        },
      },
      'CONTEXT_WINDOW_EXCEEDED',
      "This model's maximum context length is 131072 tokens. However, you requested 200000 tokens",
    ],
    [
      400,
      {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 9000,
          n_ctx: 4096,
        },
      },
      'CONTEXT_WINDOW_EXCEEDED',
      'the request exceeds the available context size, try increasing it',
    ],
    [
      400,
      { object: 'error', message: 'legacy vLLM: unknown field', type: 'BadRequestError', code: 400 },
      'INVALID_REQUEST',
      'legacy vLLM: unknown field',
    ],
    [422, { detail: 'validation failed' }, 'INVALID_REQUEST', 'validation failed'],
    [
      400,
      { error: 'model "nope" not found, try pulling it first' },
      'INVALID_REQUEST',
      'model "nope" not found, try pulling it first',
    ],
    [408, {}, 'TIMEOUT', 'Mock API error (HTTP 408)'],
    [503, { error: { message: 'Service is too busy' } }, 'SERVER', 'Service is too busy'],
    [404, '404 page not found', 'HTTP_404', '404 page not found'],
  ] as const)('%i %j → %s', async (status, errorBody, code, message) => {
    const failure = await failWith(
      httpError(status, errorBody, typeof errorBody === 'string' ? { contentType: 'text/plain' } : {}),
      {
        displayName: 'Mock',
      },
    )
    expect(failure).toMatchObject({ code, message, status })
  })

  it('an HTML 502 page: trimmed text, cut to 500 characters', async () => {
    const html = `  <html><body>${'<p>bad gateway</p>'.repeat(60)}</body></html>  `
    const failure = await failWith(httpError(502, html, { contentType: 'text/html' }))
    expect(failure.code).toBe('SERVER')
    expect(failure.message).toBe(html.trim().slice(0, 500))
  })

  it('Retry-After seconds, HTTP-date and invalid; retry-after-ms; x-request-id', async () => {
    const limited = (headers: Record<string, string>) =>
      httpError(429, { error: { message: 'slow down' } }, { headers })
    expect(await failWith(limited({ 'retry-after': '7', 'x-request-id': 'req_123' }))).toMatchObject({
      code: 'RATE_LIMIT',
      providerRetryAfterMs: 7000,
      requestId: 'req_123',
    })
    await teardown(h)
    const date = new Date(Date.now() + 60_000).toUTCString()
    const fromDate = await failWith(limited({ 'retry-after': date }))
    expect(fromDate.providerRetryAfterMs).toBeGreaterThan(30_000)
    expect(fromDate.providerRetryAfterMs).toBeLessThanOrEqual(60_000)
    await teardown(h)
    const invalid = await failWith(limited({ 'retry-after': 'later' }))
    expect(invalid).not.toHaveProperty('providerRetryAfterMs')
    expect(invalid).not.toHaveProperty('requestId')
    await teardown(h)
    expect(await failWith(limited({ 'retry-after-ms': '250', 'retry-after': '9' }))).toMatchObject({
      providerRetryAfterMs: 250,
    })
  })
})

describe('broken streams', () => {
  it('a 2xx JSON answer means the server ignored stream: true', async () => {
    h = await boot([], (url) => ({ baseURL: url }))
    h.server.push({ kind: 'http-error', status: 200, body: { choices: [] } })
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure).toEqual({
      code: 'MALFORMED_RESPONSE',
      message: `expected an event stream from ${h.server.url}, got application/json: {"choices":[]}`,
    })
  })

  it('missing [DONE], unterminated [DONE], and an empty body → STREAM_CLOSED', async () => {
    for (const events of [
      textEvents(['a']).slice(0, -1),
      [chunk({ content: 'a' }, 'stop'), { raw: 'data: [DONE]' }],
      [],
    ]) {
      h = await boot([{ kind: 'sse', events }])
      const r = await run(h.ctx)
      expect(failureOf(r.finish)).toEqual({
        code: 'STREAM_CLOSED',
        message: `event stream from ${h.server.url} ended without [DONE]`,
      })
      await teardown(h)
      h = undefined
    }
  })

  it('partial blocks stay visible before the failure', async () => {
    h = await boot([{ kind: 'sse', events: [chunk({ content: 'half' })] }])
    const r = await run(h.ctx)
    expect(r.chunks.slice(0, 2)).toEqual([
      { type: 'block-start', index: 0, blockType: 'text' },
      { type: 'text-delta', index: 0, text: 'half' },
    ])
    expect(failureOf(r.finish).code).toBe('STREAM_CLOSED')
  })

  it('non-JSON data and JSON that is not an object → MALFORMED_RESPONSE with a preview', async () => {
    const junk = `not json ${'x'.repeat(200)}`
    h = await boot([
      { kind: 'sse', events: [junk, DONE] },
      { kind: 'sse', events: ['[1,2]', DONE] },
    ])
    const a = failureOf((await run(h.ctx)).finish)
    expect(a.code).toBe('MALFORMED_RESPONSE')
    expect(a.message).toBe(`malformed event from ${h.server.url}: ${junk.slice(0, 120)}`)
    expect(failureOf((await run(h.ctx)).finish)).toMatchObject({
      code: 'MALFORMED_RESPONSE',
      message: `malformed event from ${h.server.url}: [1,2]`,
    })
  })

  it('mid-stream error events: `event: error` and `{error}` payloads, classified by wording', async () => {
    h = await boot([
      {
        kind: 'sse',
        events: [
          chunk({ content: 'a' }),
          { raw: 'event: error\ndata: {"error":{"message":"upstream overloaded"}}\n\n' },
          DONE,
        ],
      },
      { kind: 'sse', events: [{ error: { message: 'Insufficient balance', type: 'insufficient_quota' } }, DONE] },
      { kind: 'sse', events: [{ error: { message: 'context_length_exceeded: prompt too long' } }, DONE] },
      { kind: 'sse', events: [{ raw: 'event: error\ndata: plain words\n\n' }, DONE] },
    ])
    expect(failureOf((await run(h.ctx)).finish)).toEqual({ code: 'SERVER', message: 'upstream overloaded' })
    expect(failureOf((await run(h.ctx)).finish)).toEqual({ code: 'QUOTA', message: 'Insufficient balance' })
    expect(failureOf((await run(h.ctx)).finish).code).toBe('CONTEXT_WINDOW_EXCEEDED')
    expect(failureOf((await run(h.ctx)).finish)).toEqual({ code: 'SERVER', message: 'plain words' })
  })

  it('a connection reset mid-body → TRANSPORT', async () => {
    h = await boot([{ kind: 'close-early', events: [chunk({ content: 'par' })] }])
    const r = await run(h.ctx)
    expect(failureOf(r.finish)).toMatchObject({
      code: 'TRANSPORT',
      message: `event stream from ${h.server.url} failed: other side closed (UND_ERR_SOCKET)`,
    })
    expect(r.message.content).toEqual([{ type: 'text', text: 'par' }])
  })

  it('a refused port → TRANSPORT', async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const { port } = probe.address() as AddressInfo
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const url = `http://127.0.0.1:${port}`
    h = await boot([], { baseURL: url })
    expect(failureOf((await run(h.ctx)).finish)).toMatchObject({
      code: 'TRANSPORT',
      message: `request to ${url} failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    })
  })

  it('no response headers within timeoutMs → TIMEOUT', async () => {
    h = await boot([{ kind: 'hang' }], { timeoutMs: 200 })
    expect(failureOf((await run(h.ctx)).finish)).toEqual({
      code: 'TIMEOUT',
      message: `request to ${h.server.url} timed out after 200ms`,
    })
  })

  it('a stalled body → TIMEOUT after the partial blocks, and the socket is closed', async () => {
    h = await boot([{ kind: 'hang', events: [chunk({ reasoning_content: 'thinking' })] }], { streamIdleTimeoutMs: 200 })
    const r = await run(h.ctx)
    expect(r.chunks[0]).toEqual({ type: 'block-start', index: 0, blockType: 'reasoning' })
    expect(failureOf(r.finish)).toEqual({
      code: 'TIMEOUT',
      message: `event stream from ${h.server.url} idle for 200ms`,
    })
    await h.server.requests[0]!.disconnected
  })
})

describe('failures before any I/O', () => {
  it('missing key → MISSING_CREDENTIAL naming the variable; no request made', async () => {
    h = await boot([])
    vi.stubEnv('BRIDLE_TEST_KEY', '')
    expect(failureOf((await run(h.ctx)).finish)).toEqual({
      code: 'MISSING_CREDENTIAL',
      message: 'no API key: environment variable BRIDLE_TEST_KEY is not set',
    })
    vi.stubEnv('BRIDLE_TEST_KEY', undefined)
    expect(failureOf((await run(h.ctx)).finish).code).toBe('MISSING_CREDENTIAL')
    expect(h.server.requests).toHaveLength(0)
    expect(h.ctx.llm.hasProvider('mock')).toBe(true)
  })

  it('an unusable key → INVALID_CREDENTIAL naming the variable, never the key', async () => {
    h = await boot([])
    vi.stubEnv('BRIDLE_TEST_KEY', 'sk-bad\u00e9key')
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure.code).toBe('INVALID_CREDENTIAL')
    expect(failure.message).toContain('BRIDLE_TEST_KEY')
    expect(failure.message).not.toContain('sk-bad')
    expect(h.server.requests).toHaveLength(0)
  })

  it('an image block → UNSUPPORTED_CONTENT; no request made', async () => {
    h = await boot([], { displayName: 'Mock' })
    const r = await run(h.ctx, {
      messages: [createUserMessage([{ type: 'image', attachment: { id: 'i', mediaType: 'image/png' } }])],
    })
    expect(failureOf(r.finish)).toEqual({ code: 'UNSUPPORTED_CONTENT', message: 'Mock route accepts text only' })
    expect(h.server.requests).toHaveLength(0)
  })
})
