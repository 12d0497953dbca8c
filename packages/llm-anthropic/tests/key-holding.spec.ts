/**
 * The key never leaves the process (docs/security.md#what-is-filtered): the route holds it in the process's secret
 * filter when it loads and again at each call, so a server that echoes it — in an error body, an error event, a
 * malformed event, a JSON answer, or split over the streamed text, thinking and tool input — puts nothing of it into
 * the chunks or the failure. Error messages are redacted first and cut after.
 */
import { LlmRuntime, REDACTED, knownSecrets } from '@bridle/llm'
import { Context } from 'cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as llmAnthropic from '../src/index.js'
import { answerEvents, errorBody, errorEvent, messageStart, textAnswer, type MockServer } from '../src/testing.js'
import { startMockServer } from '../src/testing.js'
import { MOCK_ROUTE, TEST_KEY, boot, failureOf, request, run, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

/** A key no other test holds, so the filter's state before and after says what the route did. */
const freshKey = (tag: string) => `sk-ant-${tag}-${Math.random().toString(36).slice(2)}-0123456789`
/** Every 8-character window of `secret`: none may appear anywhere. */
const windows = (secret: string) => Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8))
const leaks = (text: string, secret: string) => windows(secret).filter((w) => text.includes(w))

describe('holding the key', () => {
  let server: MockServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('when the route loads: from apiKeyEnv, and credential header values', async () => {
    const key = freshKey('load')
    const token = freshKey('header')
    vi.stubEnv('BRIDLE_HOLD_KEY', key)
    expect([knownSecrets().has(key), knownSecrets().has(token)]).toEqual([false, false])
    const ctx = new Context()
    ctx.plugin(LlmRuntime)
    ctx.plugin(llmAnthropic, {
      provider: 'held',
      baseURL: 'http://127.0.0.1:9',
      apiKeyEnv: 'BRIDLE_HOLD_KEY',
      headers: { 'x-org-token': token },
    })
    expect([knownSecrets().has(key), knownSecrets().has(token)]).toEqual([true, true])
  })

  it('from ANTHROPIC_API_KEY when the config names no variable', () => {
    const key = freshKey('default')
    vi.stubEnv('ANTHROPIC_API_KEY', key)
    const ctx = new Context()
    ctx.plugin(LlmRuntime)
    ctx.plugin(llmAnthropic, {})
    expect(knownSecrets().has(key)).toBe(true)
  })

  it('at each call: a key set after the route loaded is held when the call reads it', async () => {
    const key = freshKey('late')
    server = await startMockServer([{ kind: 'sse', events: textAnswer([`echo ${key}`]) }])
    const ctx = new Context()
    ctx.plugin(LlmRuntime)
    ctx.plugin(llmAnthropic, { ...MOCK_ROUTE, apiKeyEnv: 'BRIDLE_LATE_KEY', baseURL: server.url })
    vi.stubEnv('BRIDLE_LATE_KEY', key)
    expect(knownSecrets().has(key)).toBe(false)
    const result = await run(ctx)
    expect(knownSecrets().has(key)).toBe(true)
    expect(result.message.content).toEqual([{ type: 'text', text: `echo ${REDACTED}` }])
    // the key was really sent: what is filtered is the echo, not the request
    expect(JSON.stringify(server.requests[0]!.headers)).toContain(key)
  })
})

describe('a server that echoes the key', () => {
  it('split over streamed text, thinking and tool input: no 8-character window of it reaches a chunk', async () => {
    const cut = (s: string) => [s.slice(0, 5), s.slice(5, 13), s.slice(13)]
    const events = answerEvents([
      { type: 'thinking', fragments: ['I see ', ...cut(TEST_KEY), ' here'], signature: 'sig' },
      { type: 'text', fragments: ['key: ', ...cut(TEST_KEY), ' ok'] },
      { type: 'tool_use', id: 't1', name: 'save', fragments: ['{"key": "', ...cut(TEST_KEY), '"}'] },
    ])
    h = await boot([{ kind: 'sse', events }])
    const result = await run(h.ctx)
    expect(result.message.content).toEqual([
      { type: 'reasoning', text: `I see ${REDACTED} here` },
      { type: 'text', text: `key: ${REDACTED} ok` },
      { type: 'tool-call', id: 't1', name: 'save', arguments: `{"key": "${REDACTED}"}` },
    ])
    expect(leaks(JSON.stringify(result.chunks), TEST_KEY)).toEqual([])
  })

  it('in an error body, an error event, a malformed event and a JSON answer: every failure is redacted', async () => {
    h = await boot([
      { kind: 'http-error', status: 401, body: errorBody('authentication_error', `invalid x-api-key ${TEST_KEY}`) },
      { kind: 'sse', events: [messageStart(), errorEvent('api_error', `key ${TEST_KEY} revoked`)] },
      { kind: 'sse', events: [messageStart(), { raw: `event: ping\ndata: not json ${TEST_KEY}\n\n` }] },
      { kind: 'http-error', status: 200, body: { type: 'message', echo: TEST_KEY } },
      { kind: 'http-error', status: 400, contentType: 'text/plain', body: `Authorization: Bearer ${TEST_KEY}` },
    ])
    const failures = []
    for (let i = 0; i < 5; i++) failures.push(failureOf((await run(h.ctx)).finish))
    expect(failures.map((f) => [f.code, f.message])).toEqual([
      ['AUTH', `mock API error (HTTP 401 authentication_error): invalid x-api-key ${REDACTED}`],
      ['SERVER', `mock API error (error event in the stream api_error): key ${REDACTED} revoked`],
      ['MALFORMED_RESPONSE', `malformed event from ${h.server.url}: not json ${REDACTED}`],
      [
        'MALFORMED_RESPONSE',
        `expected an event stream from ${h.server.url}, got application/json: {"type":"message","echo":"${REDACTED}"}`,
      ],
      ['INVALID_REQUEST', `mock API error (HTTP 400): 400 Authorization: Bearer ${REDACTED} (path: /v1/messages)`],
    ])
    expect(leaks(JSON.stringify(failures), TEST_KEY)).toEqual([])
  })

  it('across the cut of a preview or of a long message: redacted first, so no prefix is left', async () => {
    h = await boot([
      { kind: 'sse', events: [messageStart(), { raw: `data: ${'y'.repeat(110)} ${TEST_KEY}\n\n` }] },
      { kind: 'http-error', status: 200, body: { pad: 'p'.repeat(90), key: TEST_KEY } },
      { kind: 'http-error', status: 400, body: errorBody('invalid_request_error', `${'x'.repeat(455)} ${TEST_KEY}`) },
    ])
    const messages = []
    for (let i = 0; i < 3; i++) messages.push(failureOf((await run(h.ctx)).finish).message)
    expect(messages[0]).toContain(`${'y'.repeat(110)} [redacted`)
    expect(messages[2]!.length).toBeLessThanOrEqual(500)
    for (const message of messages) expect(leaks(message, TEST_KEY)).toEqual([])
  })

  it('a configured credential header echoed in the answer is redacted too', async () => {
    const token = freshKey('org')
    h = await boot([{ kind: 'sse', events: textAnswer(['org ', token.slice(0, 9), token.slice(9)]) }], {
      headers: { 'x-org-token': token },
    })
    const result = await run(h.ctx, request())
    expect(result.message.content).toEqual([{ type: 'text', text: `org ${REDACTED}` }])
    expect(leaks(JSON.stringify(result.chunks), token)).toEqual([])
  })
})
