import { describe, expect, it } from 'vitest'
import { parseAppConfig } from '../src/app-config.js'
import { chooseModel, UsageError } from '../src/model-selection.js'

const app = (raw: unknown = {}) => parseAppConfig(raw, '/app/bridle.yaml', '/app')

describe('chooseModel', () => {
  it('falls back to the scripted model and says so', () => {
    const choice = chooseModel(app(), {})
    expect(choice).toMatchObject({ scripted: true, provider: 'scripted', model: 'scripted-demo' })
    expect(choice.row).toMatchObject({ package: '@bridle/plugin-scripted-model' })
    expect(choice.notice).toBe(
      'bridle: no model configured (set DEEPSEEK_API_KEY or BRIDLE_BASE_URL); using the scripted offline model',
    )
  })

  it('uses DEEPSEEK_API_KEY with the DeepSeek defaults, never naming the key', () => {
    const choice = chooseModel(app(), { DEEPSEEK_API_KEY: 'sk-secret' })
    expect(choice).toMatchObject({
      scripted: false,
      provider: 'deepseek',
      model: 'deepseek-chat',
      row: { package: '@bridle/llm-openai', config: {} },
    })
    expect(choice.notice).toBe('bridle: model deepseek/deepseek-chat via https://api.deepseek.com')
    expect(choice.notice).not.toContain('sk-secret')
  })

  it('prefers BRIDLE_BASE_URL, which never receives the DeepSeek key', () => {
    const choice = chooseModel(app(), {
      BRIDLE_BASE_URL: 'http://127.0.0.1:9/v1',
      BRIDLE_MODEL: 'm',
      DEEPSEEK_API_KEY: 'k',
    })
    expect(choice.row).toEqual({
      package: '@bridle/llm-openai',
      config: {
        provider: 'openai-compatible',
        displayName: 'OpenAI-compatible',
        baseURL: 'http://127.0.0.1:9/v1',
        apiKeyEnv: null,
        models: [{ id: 'm', contextWindow: 32768 }],
      },
    })
    expect(
      chooseModel(app(), { BRIDLE_BASE_URL: 'http://x', BRIDLE_MODEL: 'm', BRIDLE_API_KEY: 'b' }).row?.config,
    ).toMatchObject({ apiKeyEnv: 'BRIDLE_API_KEY' })
    expect(choice.notice).toBe('bridle: model openai-compatible/m via http://127.0.0.1:9/v1')
  })

  it('treats a missing BRIDLE_MODEL or a bad context window as usage errors', () => {
    expect(() => chooseModel(app(), { BRIDLE_BASE_URL: 'http://x' })).toThrow(
      new UsageError('BRIDLE_MODEL (or -m) must name the model served at BRIDLE_BASE_URL'),
    )
    // an empty variable counts as unset
    expect(() => chooseModel(app(), { BRIDLE_BASE_URL: 'http://x', BRIDLE_MODEL: '' })).toThrow(
      /BRIDLE_MODEL \(or -m\) must name/,
    )
    expect(chooseModel(app(), { DEEPSEEK_API_KEY: 'k', BRIDLE_MODEL: '' }).model).toBe('deepseek-chat')
    expect(() =>
      chooseModel(app(), { BRIDLE_BASE_URL: 'http://x', BRIDLE_MODEL: 'm', BRIDLE_CONTEXT_WINDOW: 'lots' }),
    ).toThrow(UsageError)
  })

  it('flags override the environment', () => {
    expect(chooseModel(app(), {}, { baseUrl: 'http://y', model: 'z' })).toMatchObject({
      provider: 'openai-compatible',
      model: 'z',
    })
  })

  it('uses an app row for @bridle/llm-openai as written, without reading the environment', () => {
    const own = app({
      plugins: [
        {
          package: '@bridle/llm-openai',
          config: { provider: 'local', baseURL: 'http://l', apiKeyEnv: null, models: [{ id: 'q', contextWindow: 10 }] },
        },
      ],
    })
    expect(chooseModel(own, { DEEPSEEK_API_KEY: 'k' })).toMatchObject({
      row: undefined,
      provider: 'local',
      model: 'q',
      scripted: false,
    })
  })

  it('takes agent.model as the default model of an environment route', () => {
    expect(chooseModel(app({ agent: { model: 'deepseek-reasoner' } }), { DEEPSEEK_API_KEY: 'k' }).model).toBe(
      'deepseek-reasoner',
    )
    expect(chooseModel(app({ agent: { model: 'q' } }), { BRIDLE_BASE_URL: 'http://x' }).model).toBe('q')
    expect(chooseModel(app({ agent: { model: 'q' } }), { BRIDLE_BASE_URL: 'http://x', BRIDLE_MODEL: 'm' }).model).toBe(
      'm',
    )
  })

  it('refuses agent.provider without a model row that provides that route', () => {
    expect(() => chooseModel(app({ agent: { provider: 'custom' } }), {})).toThrow(
      /\/app\/bridle\.yaml: agent\.provider "custom" names a route, but the app lists no model plugin row/,
    )
  })
})
