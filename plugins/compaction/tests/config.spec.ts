import { describe, expect, it } from 'vitest'
import { ConfigError } from '@bridle/llm'
import { Config, DEFAULT_INSTRUCTIONS } from '../src/index.js'

describe('Config', () => {
  it('fills the defaults; null counts as absent', () => {
    expect(Config(undefined)).toEqual({
      threshold: 0.8,
      lowWater: 0.4,
      instructions: DEFAULT_INSTRUCTIONS,
      summaryMaxTokens: 4096,
      charsPerToken: 4,
    })
    expect(Config({ threshold: null, summary: null })).toEqual(Config({}))
  })

  it('keeps a summary route and the optional limits', () => {
    const c = Config({
      summary: { provider: 'p', model: 'small', maxTokens: 500 },
      contextWindow: 32_000,
      timeoutMs: 60_000,
    })
    expect(c.summary).toEqual({ provider: 'p', model: 'small', maxTokens: 500 })
    expect([c.contextWindow, c.timeoutMs]).toEqual([32_000, 60_000])
  })

  it.each([
    [{ threshold: 0 }, 'threshold'],
    [{ threshold: 1.5 }, 'threshold'],
    [{ lowWater: 0.9 }, 'lowWater: lowWater must be below threshold'],
    [{ threshold: 0.5, lowWater: 0.5 }, 'lowWater: lowWater must be below threshold'],
    [{ contextWindow: 10.5 }, 'contextWindow'],
    [{ instructions: '   ' }, 'instructions'],
    [{ summary: { provider: 'p' } }, 'summary.model'],
    [{ summaryMaxTokens: 0 }, 'summaryMaxTokens'],
    [{ charsPerToken: -1 }, 'charsPerToken'],
    [{ keep: 3 }, 'keep'],
  ])('refuses %j, naming the plugin and the field', (raw, field) => {
    let error: unknown
    try {
      Config(raw)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toMatch(/^plugin-compaction: invalid config: /)
    expect((error as Error).message).toContain(field)
  })
})
