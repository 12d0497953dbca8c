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
      'bridle: no model configured (set DEEPSEEK_API_KEY, ANTHROPIC_API_KEY or BRIDLE_BASE_URL); using the scripted offline model',
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

  it('ANTHROPIC_API_KEY picks the Anthropic route; DeepSeek wins when both keys are set unless --provider says', () => {
    const alone = chooseModel(app(), { ANTHROPIC_API_KEY: 'sk-ant-secret' })
    expect(alone).toMatchObject({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      origin: 'ANTHROPIC_API_KEY',
      row: { package: '@bridle/llm-anthropic', config: {} },
    })
    expect(alone.notice).toBe('bridle: model anthropic/claude-sonnet-4-5 via https://api.anthropic.com')
    const both = { ANTHROPIC_API_KEY: 'a', DEEPSEEK_API_KEY: 'd' }
    expect(chooseModel(app(), both).provider).toBe('deepseek')
    expect(chooseModel(app(), both, { provider: 'anthropic', model: 'claude-opus-4-5' })).toMatchObject({
      provider: 'anthropic',
      model: 'claude-opus-4-5',
    })
    expect(() => chooseModel(app(), both, { provider: 'openai-compatible' })).toThrow(UsageError)
    expect(() => chooseModel(app(), {}, { provider: 'deepseek' })).toThrow('--provider deepseek needs DEEPSEEK_API_KEY')
  })

  it('uses an @bridle/llm-anthropic row as written, and refuses a credential in ANTHROPIC_BASE_URL', () => {
    const own = chooseModel(app({ plugins: [{ package: '@bridle/llm-anthropic', config: { cacheTtl: '5m' } }] }), {})
    expect(own).toMatchObject({ row: undefined, provider: 'anthropic', model: 'claude-sonnet-4-5', origin: 'app' })
    expect(() =>
      chooseModel(app(), { ANTHROPIC_API_KEY: 'a', ANTHROPIC_BASE_URL: 'http://u:pw-secret@127.0.0.1:9' }),
    ).toThrow('ANTHROPIC_BASE_URL must not contain credentials (user:password@); put the key in ANTHROPIC_API_KEY')
  })
})
