import './setup.js'
import { ConfigError } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { Config, ConfigSchema, DEEPSEEK_BASE_URL, DEEPSEEK_MODELS, resolveConfig } from '../src/index.js'

function configError(raw: unknown): ConfigError {
  try {
    resolveConfig(raw)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error('expected resolveConfig to throw')
}

describe('config', () => {
  it('defaults to DeepSeek: URL, DEEPSEEK_API_KEY, two models, frozen', () => {
    const c = resolveConfig({})
    expect(c).toEqual({
      provider: 'deepseek',
      displayName: 'DeepSeek',
      baseURL: DEEPSEEK_BASE_URL,
      apiKeyEnv: 'DEEPSEEK_API_KEY',
      models: DEEPSEEK_MODELS,
      timeoutMs: 120_000,
      maxRetries: 2,
      streamIdleTimeoutMs: 300_000,
      streamDataTimeoutMs: 600_000,
      streamTotalTimeoutMs: 1_800_000,
      maxResponseBytes: 134_217_728,
      maxRetryDelayMs: 60_000,
      maxLineBytes: 8 * 1024 * 1024,
      maxTokensField: 'max_tokens',
      reasoningReplay: 'tool-turns',
      includeUsage: true,
      headers: {},
      extraBody: {},
    })
    expect(DEEPSEEK_BASE_URL).toBe('https://api.deepseek.com')
    expect(c.models.map((m) => [m.id, m.name, m.contextWindow, m.defaultMaxTokens])).toEqual([
      ['deepseek-chat', 'DeepSeek Chat', 131072, 8192],
      ['deepseek-reasoner', 'DeepSeek Reasoner', 131072, 32768],
    ])
    expect(Object.isFrozen(c)).toBe(true)
    expect(Object.isFrozen(c.models[0])).toBe(true)
    expect(Object.isFrozen(DEEPSEEK_MODELS)).toBe(true)
    expect(resolveConfig(undefined)).toEqual(c)
    expect(Config({})).toEqual(c)
  })

  it('a custom baseURL defaults displayName to the provider and the catalog to empty', () => {
    const c = resolveConfig({ provider: 'local', baseURL: 'http://127.0.0.1:8080/v1', apiKeyEnv: null })
    expect(c.displayName).toBe('local')
    expect(c.models).toEqual([])
    expect(c.apiKeyEnv).toBeNull()
  })

  it('rejects baseURL without apiKeyEnv, naming the plugin and the field', () => {
    const error = configError({ baseURL: 'http://127.0.0.1:8000/v1' })
    expect(error.message).toMatch(/^llm-openai: invalid config: apiKeyEnv: required when baseURL is given/)
    expect(error.code).toBe('INVALID_CONFIG')
  })

  it('rejects a non-http baseURL and a bad env variable name', () => {
    expect(configError({ baseURL: 'ftp://x', apiKeyEnv: null }).message).toContain(
      'baseURL: must be an absolute http: or https: URL',
    )
    expect(configError({ baseURL: 'not a url', apiKeyEnv: null }).message).toContain('baseURL:')
    expect(configError({ apiKeyEnv: '1BAD' }).message).toContain('apiKeyEnv: must be an environment variable name')
  })

  it('rejects provider names with whitespace, empty or longer than 64', () => {
    expect(configError({ provider: 'a b' }).message).toContain('provider: must not contain whitespace')
    expect(configError({ provider: '' }).message).toContain('provider:')
    expect(configError({ provider: 'x'.repeat(65) }).message).toContain('provider: must be at most 64 characters')
  })

  it('rejects reserved extraBody keys at top level and per model', () => {
    expect(configError({ extraBody: { stream: false } }).message).toContain(
      'extraBody.stream: "stream" is set by the adapter and may not be overridden',
    )
    const m = configError({ models: [{ id: 'a', contextWindow: 10, extraBody: { max_tokens: 5 } }] })
    expect(m.message).toContain('models.0.extraBody.max_tokens')
  })

  it('rejects duplicate model ids, bad efforts, and an unlisted default effort', () => {
    expect(
      configError({
        models: [
          { id: 'a', contextWindow: 10 },
          { id: 'a', contextWindow: 20 },
        ],
      }).message,
    ).toContain('models.1.id: duplicate model id "a"')
    expect(configError({ models: [{ id: 'a', contextWindow: 1, reasoningEfforts: [] }] }).message).toContain(
      'models.0.reasoningEfforts: must list at least one effort',
    )
    expect(
      configError({ models: [{ id: 'a', contextWindow: 1, reasoningEfforts: ['low', 'low'] }] }).message,
    ).toContain('models.0.reasoningEfforts.1: duplicate effort "low"')
    expect(
      configError({
        models: [{ id: 'a', contextWindow: 1, reasoningEfforts: ['low'], defaultReasoningEffort: 'high' }],
      }).message,
    ).toContain('models.0.defaultReasoningEffort: "high" is not listed in reasoningEfforts')
    expect(configError({ models: [{ id: 'a', contextWindow: 0 }] }).message).toContain('models.0.contextWindow')
  })

  it('rejects forbidden headers case-insensitively and unknown keys', () => {
    for (const name of ['Authorization', 'user-agent', 'ACCEPT', 'Content-Type']) {
      expect(configError({ headers: { [name]: 'x' } }).message).toContain(
        `headers.${name}: header "${name}" is set by the adapter`,
      )
    }
    expect(resolveConfig({ headers: { 'x-team': 'a' } }).headers).toEqual({ 'x-team': 'a' })
    expect(configError({ temperature: 1 }).message).toContain('temperature')
  })

  it('bounds timeouts and retries', () => {
    expect(configError({ timeoutMs: 0 }).message).toContain('timeoutMs:')
    expect(configError({ timeoutMs: 2_147_483_648 }).message).toContain('timeoutMs:')
    expect(configError({ maxRetries: 11 }).message).toContain('maxRetries:')
    expect(configError({ streamIdleTimeoutMs: 1.5 }).message).toContain('streamIdleTimeoutMs:')
    expect(configError({ maxTokensField: 'tokens' }).message).toContain('maxTokensField:')
    expect(resolveConfig({ timeoutMs: 1, maxRetries: 0 })).toMatchObject({ timeoutMs: 1, maxRetries: 0 })
  })

  it('is idempotent: a resolved config resolves to itself (cordis may re-run Config on reload)', () => {
    for (const raw of [
      {},
      { provider: 'l', baseURL: 'http://127.0.0.1:1', apiKeyEnv: null, models: [{ id: 'm', contextWindow: 5 }] },
    ]) {
      const once = resolveConfig(raw)
      expect(resolveConfig(once)).toEqual(once)
    }
  })

  it('exposes the raw schema', () => {
    expect(ConfigSchema.safeParse({}).success).toBe(true)
    expect(ConfigSchema.safeParse({ nope: 1 }).success).toBe(false)
  })
})
