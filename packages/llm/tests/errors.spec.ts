import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  assertUsableApiKey,
  attributionHeaders,
  ConfigError,
  configParser,
  errorChain,
  HarnessError,
  isContextWindowExceededError,
  isLlmFailure,
  isQuotaExceededError,
  LlmError,
  normalizeApiKey,
  parseConfig,
  toLlmFailure,
} from '@bridle/llm'
import manifest from '../package.json' with { type: 'json' }

describe('LlmError', () => {
  it('drops invalid facts instead of throwing', () => {
    const bad = [
      { status: 99 },
      { status: 600 },
      { status: 404.5 },
      { providerRetryAfterMs: 0 },
      { providerRetryAfterMs: -1 },
      { providerRetryAfterMs: Number.POSITIVE_INFINITY },
      { requestId: '' },
      { requestId: 5 },
    ]
    for (const facts of bad) {
      const error = new LlmError('boom', 'SERVER', facts as never)
      expect(error.failure).toEqual({ message: 'boom', code: 'SERVER' })
    }
    const error = new LlmError('boom', 'RATE_LIMIT', { status: 429, providerRetryAfterMs: 1500, requestId: 'req-1' })
    expect(error.failure).toEqual({
      message: 'boom',
      code: 'RATE_LIMIT',
      status: 429,
      providerRetryAfterMs: 1500,
      requestId: 'req-1',
    })
  })

  it('has name, own code, cause and a frozen failure', () => {
    const cause = new Error('socket hang up')
    const error = new LlmError('request failed', 'TRANSPORT', { cause })
    expect(error).toBeInstanceOf(HarnessError)
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('LlmError')
    expect(Object.hasOwn(error, 'code')).toBe(true)
    expect(error.code).toBe('TRANSPORT')
    expect(error.cause).toBe(cause)
    expect(Object.hasOwn(error, 'failure')).toBe(true)
    expect(Object.isFrozen(error.failure)).toBe(true)
    expect(isLlmFailure(error.failure)).toBe(true)
  })

  it('accepts a whole LlmFailure as facts (its message/code ignored) and round-trips through from()', () => {
    const failure = Object.freeze({ message: 'old', code: 'SERVER', status: 503, requestId: 'r' })
    const error = new LlmError('new', 'TIMEOUT', failure)
    expect(error.failure).toEqual({ message: 'new', code: 'TIMEOUT', status: 503, requestId: 'r' })
    const rebuilt = LlmError.from(error.failure)
    expect(rebuilt).toBeInstanceOf(LlmError)
    expect(rebuilt.failure).toEqual(error.failure)
    expect(rebuilt.message).toBe('new')
    expect(rebuilt.code).toBe('TIMEOUT')
  })

  it('turns an ill-formed code into UNKNOWN rather than failing', () => {
    expect(new LlmError('x', 'lower-case').failure.code).toBe('UNKNOWN')
    expect(new LlmError('x', 'HTTP_418').failure.code).toBe('HTTP_418')
  })
})

describe('HarnessError and ConfigError', () => {
  it('HarnessError carries its own code and optional cause', () => {
    const e = new HarnessError('bad', 'TOOL_ARGS', { cause: 1 })
    expect(e.name).toBe('HarnessError')
    expect(e.code).toBe('TOOL_ARGS')
    expect(e.cause).toBe(1)
    expect('cause' in new HarnessError('x', 'Y')).toBe(false)
  })

  it('ConfigError names the plugin and every failing field', () => {
    const schema = z.object({ dir: z.string(), limits: z.object({ max: z.number() }) }).strict()
    const parsed = schema.safeParse({ dir: 3, limits: { max: 'x' }, extra: true })
    expect(parsed.success).toBe(false)
    const error = new ConfigError('session-jsonl', parsed.error!)
    expect(error).toBeInstanceOf(HarnessError)
    expect(error.name).toBe('ConfigError')
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.issues).toBe(parsed.error!.issues)
    expect(error.message.startsWith('session-jsonl: invalid config: ')).toBe(true)
    expect(error.message).toContain('dir: ')
    expect(error.message).toContain('limits.max: ')
    expect(error.message).toContain('(root): ')
    expect(error.message).toContain('extra')
    expect(error.message.split('; ')).toHaveLength(3)
  })

  it('parseConfig returns data or throws ConfigError; null/undefined parse as {}', () => {
    const schema = z.object({ n: z.number().default(1) }).strict()
    expect(parseConfig('demo', schema, undefined)).toEqual({ n: 1 })
    expect(parseConfig('demo', schema, { n: 2 })).toEqual({ n: 2 })
    expect(() => parseConfig('demo', schema, { n: 'x' })).toThrow(ConfigError)
    expect(() => parseConfig('demo', schema, { n: 'x' })).toThrow(/^demo: invalid config: n: /)
  })

  it('configParser parses raw input every time and hands a config it produced back unchanged', () => {
    const schema = z.object({ n: z.number().default(1) }).strict()
    const parsed: unknown[] = []
    const Config = configParser((raw?: { n?: number } | null) => {
      parsed.push(raw)
      return parseConfig('demo', schema, raw)
    })
    const raw = { n: 2 }
    const config = Config(raw)
    expect(config).toEqual({ n: 2 })
    expect(config).not.toBe(raw)
    // what cordis does: `static Config` first, then the constructor's `Config(config)` on the result
    expect(Config(config)).toBe(config)
    expect(parsed).toEqual([raw])
    // an equal object that did not come from this parser is parsed (and validated) again
    expect(Config({ n: 2 })).not.toBe(config)
    expect(parsed).toHaveLength(2)
    expect(() => Config({ n: 'x' } as never)).toThrow(/^demo: invalid config: n: /)
    // a config another parser produced is not trusted
    const Other = configParser((raw?: { n?: number } | null) => parseConfig('other', schema, raw))
    expect(() => Other(Config(undefined) as never)).not.toThrow()
    expect(Other(config)).not.toBe(config)
  })
})

describe('errorChain and toLlmFailure', () => {
  it('renders causes, depth-limited and cycle-safe', () => {
    const inner = new Error('ECONNRESET')
    const outer = new Error('fetch failed', { cause: inner })
    expect(errorChain(new Error('request failed', { cause: outer }))).toBe('request failed: fetch failed: ECONNRESET')
    const a: { message: string; cause?: unknown } = { message: 'a' }
    a.cause = a
    expect(errorChain(a)).toBe('a')
    let deep: unknown = 'root'
    for (let i = 0; i < 20; i++) deep = new Error(`e${i}`, { cause: deep })
    expect(errorChain(deep).split(': ')).toHaveLength(8)
    expect(errorChain('plain')).toBe('plain')
    expect(errorChain(42)).toBe('42')
  })

  it('trusts a structural failure only when its code matches the value’s code', () => {
    const foreign = { code: 'RATE_LIMIT', failure: { message: 'slow down', code: 'RATE_LIMIT', status: 429 } }
    expect(toLlmFailure(foreign)).toEqual({ message: 'slow down', code: 'RATE_LIMIT', status: 429 })
    const mismatched = { code: 'AUTH', failure: { message: 'x', code: 'RATE_LIMIT' }, message: 'm' }
    expect(toLlmFailure(mismatched).code).toBe('UNKNOWN')
    expect(toLlmFailure(new HarnessError('h', 'TOOL_FAILED'))).toEqual({ message: 'h', code: 'TOOL_FAILED' })
    expect(toLlmFailure(new Error('x', { cause: new Error('y') }))).toEqual({ message: 'x: y', code: 'UNKNOWN' })
    expect(toLlmFailure('str')).toEqual({ message: 'str', code: 'UNKNOWN' })
  })
})

describe('provider message classifiers', () => {
  it('recognises context-window messages from real providers', () => {
    const yes = [
      "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens.",
      'context_length_exceeded',
      'Error: context length exceeded',
      'the request exceeds the available context size, try increasing it',
      "prompt is too large for the model's context window",
      'Input of 9000 tokens exceeds the model context of 8192.',
    ]
    for (const text of yes) expect(isContextWindowExceededError(text), text).toBe(true)
    const no = ['rate limit exceeded', 'invalid api key', 'input is fine. the context is large']
    for (const text of no) expect(isContextWindowExceededError(text), text).toBe(false)
  })

  it('recognises quota messages from real providers', () => {
    const yes = [
      'Insufficient Balance',
      'You exceeded your current quota, please check your plan and billing details.',
      'insufficient_quota',
      'Quota exceeded for this project',
      'Your credits exhausted',
      'You are out of credits',
      'insufficient credits',
    ]
    for (const text of yes) expect(isQuotaExceededError(text), text).toBe(true)
    for (const text of ['Rate limit reached for requests', 'server overloaded'])
      expect(isQuotaExceededError(text)).toBe(false)
  })
})

describe('API keys', () => {
  it('normalizeApiKey trims and rejects empty or non-printable keys', () => {
    expect(normalizeApiKey('  sk-abc \n')).toEqual({ ok: true, key: 'sk-abc' })
    expect(normalizeApiKey('   ')).toEqual({ ok: false, reason: 'empty' })
    expect(normalizeApiKey(undefined)).toEqual({ ok: false, reason: 'empty' })
    expect(normalizeApiKey('sk abc')).toEqual({ ok: false, reason: 'illegalCharacters' })
    expect(normalizeApiKey('sk-ключ')).toEqual({ ok: false, reason: 'illegalCharacters' })
  })
  it('assertUsableApiKey throws INVALID_CREDENTIAL naming the ref, never the key', () => {
    let error: unknown
    try {
      assertUsableApiKey('sk-\u0001secret', 'DEEPSEEK_API_KEY')
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(LlmError)
    expect((error as LlmError).code).toBe('INVALID_CREDENTIAL')
    expect((error as LlmError).message).toContain('DEEPSEEK_API_KEY')
    expect((error as LlmError).message).not.toContain('secret')
    expect(assertUsableApiKey(' k ', 'X')).toBe('k')
  })
})

describe('attributionHeaders', () => {
  it('names bridle and the package version', () => {
    expect(attributionHeaders()).toEqual({ 'user-agent': `bridle/${manifest.version}` })
  })
})
