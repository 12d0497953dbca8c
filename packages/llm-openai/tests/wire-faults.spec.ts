/**
 * Wire faults told truthfully (issue 38): an `error` object beside `choices` (OpenRouter's mid-stream form) keeps the
 * provider's message; an in-stream error with a 4xx status (Groq's `tool_use_failed`) is not `SERVER` and so not
 * retried; reasoning counted outside `completion_tokens` (xAI, OpenRouter) is folded into the output; `Retry-After:
 * -5` is no wait at all but an absent header; a base URL with a credential in its query string is refused by name;
 * and a provider message is redacted before it is cut.
 */
import { REDACTED, DEFAULT_RETRY_POLICY } from '@bridle/llm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { resolveConfig } from '../src/index.js'
import type { RetryClock } from '@bridle/llm/adapter-kit'
import { chunk, DONE, textEvents, usageOnlyChunk, type MockBehaviour, type SseItem } from '../src/testing.js'
import { boot, bootAdapter, failureOf, run, teardown, TEST_KEY, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h)
  h = undefined
})

const sse = (events: SseItem[]): MockBehaviour => ({ kind: 'sse', events })

describe('in-stream errors', () => {
  it('an error object beside choices ends the call with the provider message, after the content it carried', async () => {
    h = await boot([
      sse([
        chunk({ role: 'assistant', content: 'Half a rep' }),
        {
          ...chunk({ content: 'ly' }, 'error'),
          error: { code: 502, message: 'Provider returned error: upstream disconnected' },
        },
        DONE,
      ]),
    ])
    const r = await run(h.ctx)
    expect(r.chunks.filter((c) => c.type === 'text-delta').map((c) => (c as { text: string }).text)).toEqual([
      'Half a rep',
      'ly',
    ])
    expect(failureOf(r.finish)).toEqual({
      code: 'SERVER',
      message: 'Provider returned error: upstream disconnected',
      status: 502,
    })
  })

  it('an error object with a 4xx status beside choices is classified by the HTTP table', async () => {
    h = await boot([
      sse([{ ...chunk({ content: '' }, 'error'), error: { code: 400, message: 'bad tool schema' } }, DONE]),
    ])
    expect(failureOf((await run(h.ctx)).finish)).toEqual({
      code: 'INVALID_REQUEST',
      message: 'bad tool schema',
      status: 400,
    })
  })

  it('a null error beside choices is no error', async () => {
    h = await boot([sse([{ ...chunk({ content: 'fine' }), error: null }, chunk({}, 'stop'), DONE])])
    const r = await run(h.ctx)
    expect(r.finish).toEqual({ kind: 'stop' })
    expect(r.message.content).toEqual([{ type: 'text', text: 'fine' }])
  })

  it("Groq's tool_use_failed (400 in the stream) is INVALID_REQUEST, outside the default retryable codes", async () => {
    const groq = {
      error: {
        message: "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
        type: 'invalid_request_error',
        code: 'tool_use_failed',
        failed_generation: '<function=read_file>{"path": "a"}</function>',
      },
      status_code: 400,
    }
    h = await boot([sse([chunk({ role: 'assistant', content: '' }), groq]), sse([{ error: { ...groq.error } }])])
    const first = failureOf((await run(h.ctx)).finish)
    expect(first).toEqual({ code: 'INVALID_REQUEST', message: groq.error.message, status: 400 })
    expect(DEFAULT_RETRY_POLICY.retryableCodes).not.toContain(first.code)
    // the same error without a status is still not SERVER: its type says the request was at fault
    expect(failureOf((await run(h.ctx)).finish)).toEqual({ code: 'INVALID_REQUEST', message: groq.error.message })
  })

  it('an in-stream 429 or 408 is HTTP_429 / HTTP_408: never retried, though the same status before the stream is', async () => {
    h = await boot([
      sse([chunk({ role: 'assistant', content: 'Hal' }), { error: { message: 'slow down', status: 429 } }]),
      sse([{ error: { message: 'took too long', code: 408 } }]),
    ])
    const rateLimited = await run(h.ctx)
    expect(rateLimited.message.content).toEqual([{ type: 'text', text: 'Hal' }])
    expect(failureOf(rateLimited.finish)).toEqual({ code: 'HTTP_429', message: 'slow down', status: 429 })
    expect(failureOf((await run(h.ctx)).finish)).toEqual({ code: 'HTTP_408', message: 'took too long', status: 408 })
    for (const code of ['HTTP_429', 'HTTP_408']) expect(DEFAULT_RETRY_POLICY.retryableCodes).not.toContain(code)
  })

  it('an in-stream error with a 5xx status, or none, stays SERVER (retryable)', async () => {
    h = await boot([
      sse([{ error: { message: 'overloaded', status: 503 } }]),
      sse([{ error: { message: 'something broke' } }]),
    ])
    expect(failureOf((await run(h.ctx)).finish)).toEqual({ code: 'SERVER', message: 'overloaded', status: 503 })
    expect(failureOf((await run(h.ctx)).finish)).toEqual({ code: 'SERVER', message: 'something broke' })
  })
})

describe('usage: reasoning is a part of output', () => {
  const withUsage = (usage: Record<string, unknown>) =>
    sse([...textEvents(['hi']).slice(0, -1), usageOnlyChunk(usage as never), DONE])

  it('xAI/OpenRouter: reasoning counted outside completion_tokens is added to the output', async () => {
    h = await boot([
      withUsage({
        prompt_tokens: 10,
        completion_tokens: 1,
        total_tokens: 301,
        completion_tokens_details: { reasoning_tokens: 290 },
      }),
      withUsage({
        prompt_tokens: 10,
        completion_tokens: 500,
        total_tokens: 800,
        completion_tokens_details: { reasoning_tokens: 290 },
      }),
      withUsage({ prompt_tokens: 10, completion_tokens: 1, completion_tokens_details: { reasoning_tokens: 290 } }),
    ])
    expect((await run(h.ctx)).usage).toEqual({ inputTokens: 10, outputTokens: 291, reasoningTokens: 290 })
    expect((await run(h.ctx)).usage).toEqual({ inputTokens: 10, outputTokens: 790, reasoningTokens: 290 })
    expect((await run(h.ctx)).usage).toEqual({ inputTokens: 10, outputTokens: 291, reasoningTokens: 290 })
  })

  it('OpenAI: reasoning already inside completion_tokens is left as it is', async () => {
    h = await boot([
      withUsage({
        prompt_tokens: 10,
        completion_tokens: 500,
        total_tokens: 510,
        completion_tokens_details: { reasoning_tokens: 290 },
      }),
    ])
    expect((await run(h.ctx)).usage).toEqual({ inputTokens: 10, outputTokens: 500, reasoningTokens: 290 })
  })
})

describe('Retry-After that says nothing usable', () => {
  it('Retry-After: -5 is treated as absent: the default backoff, not a retry at once', async () => {
    const waits: number[] = []
    const clock: RetryClock = { sleep: async (ms) => void waits.push(ms), random: () => 0, now: Date.now }
    h = await bootAdapter(
      [
        { kind: 'http-error', status: 503, body: { error: { message: 'busy' } }, headers: { 'retry-after': '-5' } },
        { kind: 'sse', events: textEvents(['ok']) },
      ],
      { maxRetries: 1 },
      clock,
    )
    expect((await run(h.ctx)).finish).toEqual({ kind: 'stop' })
    expect(waits).toEqual([500])
  })
})

describe('a credential in the base URL query string', () => {
  it('is refused naming the parameter, never its value; api-version stays usable', () => {
    const secret = 'q-never-print-5521'
    let message = ''
    try {
      resolveConfig({ baseURL: `http://127.0.0.1:9/v1?api-version=2024-10-21&api-key=${secret}`, apiKeyEnv: null })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toBe(
      'llm-openai: invalid config: baseURL: must not carry a credential in its query string (parameter "api-key"); give the key through apiKeyEnv',
    )
    expect(message).not.toContain(secret)
    expect(
      resolveConfig({ baseURL: 'https://x.openai.azure.com/openai/v1?api-version=2024-10-21', apiKeyEnv: null })
        .baseURL,
    ).toBe('https://x.openai.azure.com/openai/v1?api-version=2024-10-21')
    for (const name of ['token', 'access_token', 'sig', 'key', 'code_verifier_secret'])
      expect(() => resolveConfig({ baseURL: `http://h/v1?${name}=abcdefgh12`, apiKeyEnv: null })).toThrow(`"${name}"`)
  })
})

describe('redact first, then cut', () => {
  it('a key that straddles character 500 of a provider message leaves no prefix behind', async () => {
    const message = `${'x'.repeat(490)} ${TEST_KEY} and more`
    h = await boot([{ kind: 'http-error', status: 400, body: { error: { message } } }])
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure.message).toBe(`${'x'.repeat(490)} ${REDACTED}`.slice(0, 500))
    expect(failure.message).not.toContain(TEST_KEY.slice(0, 8))
  })

  it('a malformed event previews its data redacted, then cut', async () => {
    h = await boot([sse([{ raw: `data: ${'y'.repeat(110)} ${TEST_KEY}\n\n` }])])
    const failure = failureOf((await run(h.ctx)).finish)
    expect(failure.code).toBe('MALFORMED_RESPONSE')
    expect(failure.message).not.toContain(TEST_KEY.slice(0, 8))
    expect(failure.message).toContain(`${'y'.repeat(110)} [redacted`)
  })

  it('the key held when the route loads is redacted in the answer the model streams, split over deltas', async () => {
    vi.stubEnv('BRIDLE_TEST_KEY', TEST_KEY)
    h = await boot([sse([...textEvents(['key: ', TEST_KEY.slice(0, 6), TEST_KEY.slice(6), ' ok'])])])
    const r = await run(h.ctx)
    expect(r.message.content).toEqual([{ type: 'text', text: `key: ${REDACTED} ok` }])
    expect(JSON.stringify(r.chunks)).not.toContain(TEST_KEY.slice(0, 8))
  })
})
