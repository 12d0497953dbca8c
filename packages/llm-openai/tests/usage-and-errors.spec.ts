import './setup.js'
import { describe, expect, it } from 'vitest'
import { httpErrorCode, retryAfterMs, translateUsage } from '../src/index.js'

describe('usage', () => {
  it('DeepSeek cache hits are subtracted from the prompt (spec example)', () => {
    expect(
      translateUsage({
        prompt_tokens: 1200,
        completion_tokens: 80,
        prompt_cache_hit_tokens: 1024,
        prompt_cache_miss_tokens: 176,
      }),
    ).toEqual({ inputTokens: 176, outputTokens: 80, cacheReadTokens: 1024 })
  })

  it('OpenAI cached_tokens and reasoning_tokens; a reported 0 is kept', () => {
    expect(
      translateUsage({
        prompt_tokens: 50,
        completion_tokens: 30,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 20 },
      }),
    ).toEqual({ inputTokens: 50, outputTokens: 30, cacheReadTokens: 0, reasoningTokens: 20 })
  })

  it('DeepSeek field wins over OpenAI field; invalid numbers count as not reported; floors at 0', () => {
    expect(
      translateUsage({ prompt_tokens: 10, prompt_cache_hit_tokens: 4, prompt_tokens_details: { cached_tokens: 9 } }),
    ).toEqual({
      inputTokens: 6,
      outputTokens: 0,
      cacheReadTokens: 4,
    })
    expect(translateUsage({ prompt_tokens: -1, completion_tokens: 'x', prompt_cache_hit_tokens: Number.NaN })).toEqual({
      inputTokens: 0,
      outputTokens: 0,
    })
    expect(translateUsage({ prompt_tokens: 3, prompt_cache_hit_tokens: 5 })).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 5,
    })
  })
})

describe('HTTP classification table', () => {
  it('first matching row wins', () => {
    expect(httpErrorCode(401, {})).toBe('AUTH')
    expect(httpErrorCode(403, { message: 'insufficient quota' })).toBe('AUTH')
    expect(httpErrorCode(402, {})).toBe('QUOTA')
    expect(httpErrorCode(429, { code: 'insufficient_quota' })).toBe('QUOTA')
    expect(httpErrorCode(429, { message: 'slow down' })).toBe('RATE_LIMIT')
    expect(httpErrorCode(400, { code: 'context_length_exceeded' })).toBe('CONTEXT_WINDOW_EXCEEDED')
    expect(httpErrorCode(400, { type: 'exceed_context_size_error' })).toBe('CONTEXT_WINDOW_EXCEEDED')
    expect(httpErrorCode(413, { message: "This model's maximum context length is 65536 tokens" })).toBe(
      'CONTEXT_WINDOW_EXCEEDED',
    )
    expect(httpErrorCode(413, {})).toBe('HTTP_413')
    expect(httpErrorCode(422, {})).toBe('INVALID_REQUEST')
    expect(httpErrorCode(400, { message: 'bad' })).toBe('INVALID_REQUEST')
    expect(httpErrorCode(408, {})).toBe('TIMEOUT')
    expect(httpErrorCode(503, {})).toBe('SERVER')
    expect(httpErrorCode(404, {})).toBe('HTTP_404')
  })

  it('retry-after: ms header first, then seconds, then HTTP-date; invalid or non-positive omitted', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }), now)).toBe(1500)
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000)
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000)
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 00:00:05 GMT' }), now)).toBeUndefined()
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined()
    expect(retryAfterMs(new Headers({ 'retry-after': '0' }), now)).toBeUndefined()
    expect(retryAfterMs(new Headers({ 'retry-after-ms': 'x', 'retry-after': '1' }), now)).toBe(1000)
    expect(retryAfterMs(new Headers(), now)).toBeUndefined()
  })
})
