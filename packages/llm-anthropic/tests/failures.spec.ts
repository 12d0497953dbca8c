import { createServer } from 'node:net'
import { DEFAULT_RETRY_POLICY } from '@bridle/llm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { answerEvents, errorBody, errorEvent, messageStart } from '../src/testing.js'
import { TEST_KEY, boot, failureOf, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

describe('HTTP failures', () => {
  it.each([
    [529, errorBody('overloaded_error', 'Overloaded'), 'SERVER'],
    [500, errorBody('api_error', 'Internal server error'), 'SERVER'],
    [503, '<html><body>Service Unavailable</body></html>', 'SERVER'],
    [401, errorBody('authentication_error', 'invalid x-api-key'), 'AUTH'],
    [403, errorBody('permission_error', 'not allowed'), 'AUTH'],
    [
      400,
      errorBody('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
      'CONTEXT_WINDOW_EXCEEDED',
    ],
    [400, errorBody('invalid_request_error', 'Your credit balance is too low to access the Anthropic API.'), 'QUOTA'],
    [400, errorBody('invalid_request_error', 'messages: field required'), 'INVALID_REQUEST'],
    [413, errorBody('request_too_large', 'Request exceeds the maximum size'), 'INVALID_REQUEST'],
    [404, errorBody('not_found_error', 'model: claude-x'), 'HTTP_404'],
  ])('HTTP %i → the right code', async (status, body, code) => {
    h = await boot([{ kind: 'http-error', status, body, headers: { 'request-id': 'req_011' } }])
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure).toMatchObject({ code, status, requestId: 'req_011' })
    if (typeof body === 'object')
      expect(failure.message).toContain((body as { error: { message: string } }).error.message)
  })

  it('names the error type and keeps the server-requested wait of a 429', async () => {
    h = await boot([
      {
        kind: 'http-error',
        status: 429,
        body: errorBody('rate_limit_error', 'slow down'),
        headers: { 'retry-after': '7' },
      },
    ])
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure).toMatchObject({
      code: 'RATE_LIMIT',
      status: 429,
      providerRetryAfterMs: 7000,
      requestId: 'req_mock_01',
    })
    expect(failure.message).toBe(
      'Anthropic API error (HTTP 429 rate_limit_error): slow down'.replace('Anthropic', 'mock'),
    )
  })

  it('scrubs the key from an error message before cutting it to length', async () => {
    const echo = `${'x'.repeat(495)}${TEST_KEY} tail`
    h = await boot([{ kind: 'http-error', status: 400, body: errorBody('invalid_request_error', echo) }])
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure.message).not.toContain(TEST_KEY.slice(0, 12))
    expect(failure.message.length).toBeLessThanOrEqual(500)
  })

  it('refuses a 2xx JSON answer: the server ignored stream: true', async () => {
    h = await boot([{ kind: 'http-error', status: 200, body: { type: 'message', content: [] } }])
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure.code).toBe('MALFORMED_RESPONSE')
    expect(failure.message).toContain('got application/json')
  })

  it('names a 2xx answer that is not an event stream by its content type', async () => {
    h = await boot([
      { kind: 'http-error', status: 200, body: '<html><body>Sign in</body></html>', contentType: 'text/html' },
    ])
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure).toMatchObject({
      code: 'MALFORMED_RESPONSE',
      message: `response from ${h.server.url} is not an event stream (content-type text/html)`,
    })
  })

  it('reports a refused connection as TRANSPORT with its cause', async () => {
    const port = await closedPort()
    h = await boot([], { baseURL: `http://127.0.0.1:${port}` })
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure.code).toBe('TRANSPORT')
    expect(failure.message).toMatch(/ECONNREFUSED/)
  })
})

describe('failures inside the stream', () => {
  it('an overloaded error event after partial text: SERVER 529, the partial block kept', async () => {
    const events = [
      ...answerEvents([{ type: 'text', fragments: ['par', 'tial'] }], { cutAfterBlocks: true }).slice(0, 5),
      errorEvent('overloaded_error', 'Overloaded'),
    ]
    h = await boot([{ kind: 'sse', events }])
    const result = await run(h.ctx)
    expect(failureOf(result.finish)).toMatchObject({ code: 'SERVER', status: 529 })
    expect(failureOf(result.finish).message).toContain('overloaded_error')
    expect(result.message.content).toEqual([{ type: 'text', text: 'partial' }])
  })

  it('a rate-limit error event (a 4xx inside the stream) is HTTP_429, outside the default retryable codes', async () => {
    h = await boot([{ kind: 'sse', events: [messageStart(), errorEvent('rate_limit_error', 'too fast')] }])
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure).toMatchObject({ code: 'HTTP_429', status: 429 })
    expect(failure.message).toContain('rate_limit_error')
    expect(DEFAULT_RETRY_POLICY.retryableCodes).not.toContain(failure.code)
  })

  it('a payload that is not JSON is MALFORMED_RESPONSE with a preview', async () => {
    h = await boot([
      { kind: 'sse', events: [messageStart(), { raw: 'event: content_block_delta\ndata: {"type":"content_bl\n\n' }] },
    ])
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure.code).toBe('MALFORMED_RESPONSE')
    expect(failure.message).toContain('{"type":"content_bl')
  })

  it('a delta of the wrong kind for its block is MALFORMED_RESPONSE', async () => {
    const events = answerEvents([{ type: 'text', fragments: [] }], { cutAfterBlocks: true }).slice(0, 3)
    events.push({
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{' } },
    })
    h = await boot([{ kind: 'sse', events }])
    expect(failureOf((await run(h.ctx)).finish).code).toBe('MALFORMED_RESPONSE')
  })

  it('a body that ends mid-block, before message_stop, is STREAM_CLOSED with the partial text', async () => {
    const events = answerEvents([{ type: 'text', fragments: ['cut ', 'here'] }], { cutAfterBlocks: true })
    events.pop() // no content_block_stop either
    h = await boot([{ kind: 'sse', events }])
    const result = await run(h.ctx)
    expect(failureOf(result.finish)).toMatchObject({ code: 'STREAM_CLOSED' })
    expect(failureOf(result.finish).message).toContain('ended before message_stop')
    expect(result.message.content).toEqual([{ type: 'text', text: 'cut here' }])
  })

  it('a connection reset mid-block is TRANSPORT', async () => {
    const events = answerEvents([{ type: 'tool_use', id: 't', name: 'ls', fragments: ['{"di'] }], {
      cutAfterBlocks: true,
    })
    events.pop()
    h = await boot([{ kind: 'close-early', events }])
    const result = await run(h.ctx)
    expect(failureOf(result.finish).code).toBe('TRANSPORT')
  })
})

/** A port that was just closed: connecting is refused (undici refuses a few "bad" ports before trying). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

vi.setConfig({ testTimeout: 20_000 })
