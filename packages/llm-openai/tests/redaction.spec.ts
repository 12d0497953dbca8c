/**
 * Secrets never leave the adapter (issue 14 item 3): a key the server echoes — in an error body, an error
 * event, a page that is not a stream, a malformed event — comes back as `[redacted]`; so do configured
 * header values; a base URL with credentials is refused without being repeated.
 */
import { ConfigError, REDACTED } from '@bridle/llm'
import { afterEach, describe, expect, it } from 'vitest'
import { resolveConfig } from '../src/index.js'
import { DONE, chunk } from '../src/testing.js'
import { boot, failureOf, run, teardown, TEST_KEY, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

describe('a server that echoes the key', () => {
  it('in an error body, an error event, a non-stream page and a malformed event: every message is redacted', async () => {
    h = await boot([
      { kind: 'http-error', status: 401, body: { error: { message: `Incorrect API key provided: ${TEST_KEY}.` } } },
      {
        kind: 'sse',
        events: [chunk({ content: 'a' }), { raw: `event: error\ndata: key ${TEST_KEY} revoked\n\n` }, DONE],
      },
      { kind: 'http-error', status: 200, contentType: 'text/html', body: `<p>Bearer ${TEST_KEY} is not allowed</p>` },
      { kind: 'sse', events: [`not json: ${TEST_KEY}`, DONE] },
      { kind: 'http-error', status: 400, contentType: 'text/plain', body: `Authorization: Bearer ${TEST_KEY}` },
    ])
    const failures = []
    for (let i = 0; i < 5; i++) failures.push(failureOf((await run(h.ctx)).finish))
    expect(failures).toEqual([
      { code: 'AUTH', status: 401, message: `Incorrect API key provided: ${REDACTED}.` },
      { code: 'SERVER', message: `key ${REDACTED} revoked` },
      {
        code: 'MALFORMED_RESPONSE',
        message: `response from ${h.server.url} is not an event stream (content-type text/html): Bearer ${REDACTED} is not allowed`,
      },
      { code: 'MALFORMED_RESPONSE', message: `malformed event from ${h.server.url}: not json: ${REDACTED}` },
      { code: 'INVALID_REQUEST', status: 400, message: `Authorization: Bearer ${REDACTED}` },
    ])
    expect(JSON.stringify(failures)).not.toContain(TEST_KEY)
    // the key was really sent: redaction is of the echo, not of the request
    expect(h.server.requests[0]!.headers.authorization).toBe(`Bearer ${TEST_KEY}`)
  })

  it('a configured header value (a second credential) is redacted the same way; the request id too', async () => {
    const token = 'org-token-5566778899'
    h = await boot(
      [
        {
          kind: 'http-error',
          status: 403,
          body: { error: { message: `org ${token} suspended` } },
          headers: { 'x-request-id': `req-${TEST_KEY}` },
        },
      ],
      { headers: { 'x-org-token': token } },
    )
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure).toEqual({
      code: 'AUTH',
      status: 403,
      message: `org ${REDACTED} suspended`,
      requestId: `req-${REDACTED}`,
    })
  })
})

describe('a base URL with credentials', () => {
  it.each(['http://user:s3cr3t-pass@127.0.0.1:8000/v1', 'https://s3cr3t-token@api.example.com'])(
    '%s is refused naming the field, never the secret',
    (baseURL) => {
      let error: unknown
      try {
        resolveConfig({ baseURL, apiKeyEnv: null })
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as Error).message).toBe(
        'llm-openai: invalid config: baseURL: must not contain credentials (user:password@); give the key through apiKeyEnv',
      )
      expect(
        JSON.stringify({ message: (error as Error).message, issues: (error as ConfigError).issues }),
      ).not.toContain('s3cr3t')
    },
  )
})
