import './setup.js'
import { LlmRuntime } from '@bridle/llm'
import { Context } from 'cordis'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as llmOpenai from '../src/index.js'
import { OpenAICompatAdapter, resolveConfig } from '../src/index.js'

afterEach(() => {
  vi.unstubAllEnvs()
})

function runtime() {
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  return ctx
}

describe('registration on ctx.llm', () => {
  it('exports the functional plugin surface', () => {
    expect(llmOpenai.name).toBe('llm-openai')
    expect(llmOpenai.inject).toEqual(['llm'])
    expect(typeof llmOpenai.apply).toBe('function')
    expect(typeof llmOpenai.Config).toBe('function')
  })

  it('the default row registers the deepseek route with its catalog, without a key', async () => {
    vi.stubEnv('DEEPSEEK_API_KEY', undefined)
    const ctx = runtime()
    ctx.plugin(llmOpenai)
    expect(ctx.llm.listProviders()).toEqual([{ id: 'deepseek', name: 'DeepSeek' }])
    expect(await ctx.llm.listModels('deepseek')).toEqual([
      { provider: 'deepseek', id: 'deepseek-chat', name: 'DeepSeek Chat' },
      { provider: 'deepseek', id: 'deepseek-reasoner', name: 'DeepSeek Reasoner' },
    ])
    expect(await ctx.llm.resolveModel('deepseek', 'deepseek-reasoner')).toEqual({
      provider: 'deepseek',
      id: 'deepseek-reasoner',
      name: 'DeepSeek Reasoner',
      context: { contextWindow: 131072 },
      defaultMaxTokens: 32768,
    })
    expect(await ctx.llm.resolveModel('deepseek', 'deepseek-v9')).toEqual({
      provider: 'deepseek',
      id: 'deepseek-v9',
      name: 'deepseek-v9',
    })
  })

  it('disposing the plugin removes the route', () => {
    const ctx = runtime()
    const fork = ctx.plugin(llmOpenai, { provider: 'local', baseURL: 'http://127.0.0.1:1/v1', apiKeyEnv: null })
    expect(ctx.llm.hasProvider('local')).toBe(true)
    fork.dispose()
    expect(ctx.llm.hasProvider('local')).toBe(false)
  })

  it('two instances with different providers coexist, each disposable on its own', () => {
    const ctx = runtime()
    const a = ctx.plugin(llmOpenai, { provider: 'vllm', baseURL: 'http://127.0.0.1:8000/v1', apiKeyEnv: null })
    ctx.plugin(llmOpenai, {
      provider: 'ollama',
      displayName: 'Ollama',
      baseURL: 'http://127.0.0.1:11434/v1',
      apiKeyEnv: null,
    })
    expect(ctx.llm.listProviders()).toEqual([
      { id: 'vllm', name: 'vllm' },
      { id: 'ollama', name: 'Ollama' },
    ])
    a.dispose()
    expect(ctx.llm.listProviders()).toEqual([{ id: 'ollama', name: 'Ollama' }])
  })

  it('a bad config registers nothing', () => {
    const ctx = runtime()
    ctx.on('internal/error', () => {})
    ctx.plugin(llmOpenai, { provider: 'x', baseURL: 'http://127.0.0.1:1' })
    expect(ctx.llm.listProviders()).toEqual([])
  })

  it('resolveModel reports listed efforts; retryPolicy is the runtime default', () => {
    const adapter = new OpenAICompatAdapter(
      resolveConfig({
        provider: 'openai',
        baseURL: 'https://api.openai.com/v1',
        apiKeyEnv: 'OPENAI_API_KEY',
        models: [
          {
            id: 'o4-mini',
            name: 'o4 mini',
            description: 'small',
            contextWindow: 200000,
            reasoningEfforts: ['low', 'medium', 'high'],
            defaultReasoningEffort: 'medium',
          },
        ],
      }),
    )
    expect(adapter.resolveModel('openai', 'o4-mini')).toEqual({
      provider: 'openai',
      id: 'o4-mini',
      name: 'o4 mini',
      description: 'small',
      context: { contextWindow: 200000 },
      reasoning: {
        efforts: [
          { id: 'low', name: 'low' },
          { id: 'medium', name: 'medium' },
          { id: 'high', name: 'high' },
        ],
        defaultEffort: 'medium',
      },
    })
    expect(adapter.listModels('openai')).toEqual([
      { provider: 'openai', id: 'o4-mini', name: 'o4 mini', description: 'small' },
    ])
    expect(adapter.providerInfo('openai')).toEqual({ id: 'openai', name: 'openai' })
    expect(adapter.retryPolicy()).toBeUndefined()
  })
})
