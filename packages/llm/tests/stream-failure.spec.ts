import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_RETRY_POLICY } from '../src/index.js'
import { inStreamFailureCode } from '../src/adapter-kit.js'

const codes = fc.constantFrom(...DEFAULT_RETRY_POLICY.retryableCodes, 'INVALID_REQUEST', 'AUTH', 'QUOTA', 'HTTP_418')

describe('inStreamFailureCode', () => {
  it('never gives an in-stream 4xx a retryable code', () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 499 }), codes, (status, code) => {
        expect(DEFAULT_RETRY_POLICY.retryableCodes).not.toContain(inStreamFailureCode(status, code))
      }),
    )
  })

  it('keeps every code that was not retryable, and every code of a 5xx', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), codes, (status, code) => {
        const kept = status >= 500 || !DEFAULT_RETRY_POLICY.retryableCodes.includes(code)
        if (kept) expect(inStreamFailureCode(status, code)).toBe(code)
      }),
    )
  })

  it('names the status of a retryable 4xx', () => {
    expect(inStreamFailureCode(429, 'RATE_LIMIT')).toBe('HTTP_429')
    expect(inStreamFailureCode(408, 'TIMEOUT')).toBe('HTTP_408')
    expect(inStreamFailureCode(529, 'SERVER')).toBe('SERVER')
  })
})
