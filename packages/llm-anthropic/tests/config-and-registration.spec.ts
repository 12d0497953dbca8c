import { ConfigError, LlmRuntime } from '@bridle/llm'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import * as llmAnthropic from '../src/index.js'
import { ANTHROPIC_BASE_URL, resolveConfig } from '../src/index.js'
import { textAnswer } from '../src/testing.js'
import { boot, failureOf, request, teardown, type Harness } from './harness.js'

let h: Harness | undefined
afterEach(async () => {
  await teardown(h, { strict: false })
  h = undefined
})

describe('config', () => {
  it('defaults to the Anthropic API, ANTHROPIC_API_KEY, the Claude catalog and the bridle cache policy', () => {
    const config = resolveConfig({})
    expect(config).toMatchObject({
      provider: 'anthropic',
      displayName: 'Anthropic',
      baseURL: ANTHROPIC_BASE_URL,
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      streamTotalTimeoutMs: 30 * 60_000,
      cachePolicy: 'bridle',
      cacheTtl: '1h',
    })
    expect(config.models.map((m) => m.id)).toContain('claude-sonnet-4-5')
    expect(Object.isFrozen(config.models[0])).toBe(true)
  })

  it.each([
    [{ baseURL: 'http://127.0.0.1:1' }, 'apiKeyEnv: required when baseURL is given'],
    [{ baseURL: 'https://u:secret-pass@example.test', apiKeyEnv: 'K' }, 'must not contain credentials'],
    [{ baseURL: 'https://example.test/?key=secret-in-query', apiKeyEnv: 'K' }, 'must not carry a query string'],
    [{ extraBody: { thinking: {} } }, 'extraBody.thinking: "thinking" is set by the adapter'],
    [{ headers: { 'X-Api-Key': 'k' } }, 'header "X-Api-Key" is set by the adapter'],
    [
      {
        models: [
          { id: 'a', contextWindow: 1 },
          { id: 'a', contextWindow: 1 },
        ],
      },
      'models.1.id: duplicate model id "a"',
    ],
    [{ models: [{ id: 'a', contextWindow: 1, defaultReasoningEffort: 'high' }] }, 'is not an effort of thinking'],
    [{ cacheTtl: '10m' }, 'cacheTtl'],
  ])('rejects %j', (raw, message) => {
    const attempt = () => resolveConfig(raw)
    expect(attempt).toThrow(ConfigError)
    expect(attempt).toThrow(message)
    const text = (() => {
      try {
        attempt()
      } catch (error) {
        return (error as Error).message
      }
    })()
    expect(text).not.toContain('secret')
  })
})

describe('registration', () => {
  it('lists the catalog and resolves a listed and an unlisted model', async () => {
    h = await boot([])
    expect(h.ctx.llm.listProviders()).toEqual([{ id: 'mock', name: 'mock' }])
    const listed = await h.ctx.llm.resolveModel('mock', 'mock-claude')
    expect(listed).toMatchObject({ context: { contextWindow: 200_000 }, defaultMaxTokens: 256 })
    expect(listed.reasoning?.efforts.map((e) => e.id)).toEqual(['low', 'high'])
    expect(await h.ctx.llm.resolveModel('mock', 'claude-next')).toEqual({
      provider: 'mock',
      id: 'claude-next',
      name: 'claude-next',
      defaultMaxTokens: 4096,
    })
  })

  it('disposing the plugin removes the route and ends a call in flight', async () => {
    h = await boot([{ kind: 'hang', events: textAnswer(['x']).slice(0, 4) }])
    const fork = h.ctx.plugin(llmAnthropic, { provider: 'second', baseURL: h.server.url, apiKeyEnv: 'K' })
    expect(h.ctx.llm.hasProvider('second')).toBe(true)
    fork.dispose()
    expect(h.ctx.llm.hasProvider('second')).toBe(false)
    const ctx = new Context()
    ctx.plugin(LlmRuntime)
    const route = ctx.plugin(llmAnthropic, {
      provider: 'mock',
      baseURL: h.server.url,
      apiKeyEnv: 'BRIDLE_TEST_ANTHROPIC_KEY',
    })
    const chunks: unknown[] = []
    const pending = (async () => {
      for await (const chunk of ctx.llm.stream(request())) chunks.push(chunk)
    })()
    await h.server.waitForRequests(1)
    route.dispose()
    await pending
    const finish = chunks.at(-1) as { reason: Parameters<typeof failureOf>[0] }
    expect(failureOf(finish.reason)).toMatchObject({ code: 'ABORTED' })
    expect(failureOf(finish.reason).message).toContain('route was disposed')
  })
})
