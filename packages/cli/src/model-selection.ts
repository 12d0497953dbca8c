import { urlHasCredentials } from '@bridle/llm'
import type { AppConfig, PluginRow } from './app-config.js'
import { rowName } from './app-config.js'

export const LLM_OPENAI = '@bridle/llm-openai'
export const SCRIPTED_MODEL = '@bridle/plugin-scripted-model'

/** A usage error: the CLI prints it and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export interface ModelChoice {
  /** The model plugin row to add, or `undefined` when the app's own rows already provide the model. */
  row: PluginRow | undefined
  provider: string
  model: string
  /** The one stderr line that says which model answers. */
  notice: string
  scripted: boolean
}

export interface ModelFlags {
  model?: string
  baseUrl?: string
}

const DEFAULT_SCRIPT = {
  turns: [
    {
      match: 'package|name',
      steps: [
        {
          reasoning: 'The package name is in the manifest, so I will read package.json first.',
          toolCalls: [{ name: 'read_file', arguments: { path: 'package.json' } }],
        },
        { text: 'The package is named `{{tool-result:match:"name":\\s*"([^"]+)"}}` (from package.json).' },
      ],
    },
    {
      steps: [
        {
          text:
            'This answer comes from the scripted offline model, not a language model. ' +
            'Set DEEPSEEK_API_KEY or BRIDLE_BASE_URL (with BRIDLE_MODEL) to talk to a real one.',
        },
      ],
    },
  ],
}

/**
 * Picks the model route for `bridle run` (spec/llm-openai.md §11): an app row for `@bridle/llm-openai` wins
 * as written; else `BRIDLE_BASE_URL` (or `--base-url`), else `DEEPSEEK_API_KEY`, else the scripted model —
 * which is always announced, never silent.
 */
export function chooseModel(app: AppConfig, env: NodeJS.ProcessEnv, flags: ModelFlags = {}): ModelChoice {
  const own = app.plugins.find((row) => rowName(row) === LLM_OPENAI || rowName(row) === SCRIPTED_MODEL)
  if (own) {
    const config = (own.config ?? {}) as { provider?: string; model?: string; models?: { id: string }[] }
    const scripted = rowName(own) === SCRIPTED_MODEL
    const provider = app.agent.provider ?? config.provider ?? (scripted ? 'scripted' : 'deepseek')
    const model = flags.model ?? app.agent.model ?? config.model ?? config.models?.[0]?.id ?? (scripted ? 'scripted-demo' : 'deepseek-chat')
    return { row: undefined, provider, model, scripted, notice: `bridle: model ${provider}/${model} (from the app config)` }
  }
  if (app.agent.provider !== undefined) {
    throw new UsageError(
      `${app.file ?? 'bridle'}: agent.provider "${app.agent.provider}" names a route, but the app lists no model plugin row ` +
        `(${LLM_OPENAI} or ${SCRIPTED_MODEL}) to provide it; add one, or remove agent.provider to use the environment's model`,
    )
  }
  const baseURL = flags.baseUrl ?? env.BRIDLE_BASE_URL
  if (baseURL && urlHasCredentials(baseURL)) {
    // never echo the URL: its userinfo is the secret
    const source = flags.baseUrl !== undefined ? '--base-url' : 'BRIDLE_BASE_URL'
    throw new UsageError(`bridle: ${source} must not contain credentials (user:password@); put the key in BRIDLE_API_KEY`)
  }
  if (baseURL) {
    const model = flags.model ?? env.BRIDLE_MODEL ?? app.agent.model
    if (!model) throw new UsageError('bridle: BRIDLE_MODEL must name the model served at BRIDLE_BASE_URL')
    const windowText = env.BRIDLE_CONTEXT_WINDOW
    const contextWindow = windowText === undefined || windowText === '' ? 32768 : Number(windowText)
    if (!Number.isSafeInteger(contextWindow) || contextWindow <= 0) {
      throw new UsageError(`bridle: BRIDLE_CONTEXT_WINDOW must be a positive integer, got "${windowText}"`)
    }
    const provider = 'openai-compatible'
    return {
      row: {
        package: LLM_OPENAI,
        config: {
          provider,
          displayName: 'OpenAI-compatible',
          baseURL,
          apiKeyEnv: env.BRIDLE_API_KEY ? 'BRIDLE_API_KEY' : null,
          models: [{ id: model, contextWindow }],
        },
      },
      provider,
      model,
      scripted: false,
      notice: `bridle: model ${provider}/${model} via ${baseURL}`,
    }
  }
  if (env.DEEPSEEK_API_KEY) {
    const model = flags.model ?? env.BRIDLE_MODEL ?? app.agent.model ?? 'deepseek-chat'
    return {
      row: { package: LLM_OPENAI, config: {} },
      provider: 'deepseek',
      model,
      scripted: false,
      notice: `bridle: model deepseek/${model} via https://api.deepseek.com`,
    }
  }
  return {
    row: { package: SCRIPTED_MODEL, config: app.scripted ?? DEFAULT_SCRIPT },
    provider: (app.scripted?.provider as string | undefined) ?? 'scripted',
    model: (app.scripted?.model as string | undefined) ?? 'scripted-demo',
    scripted: true,
    notice: 'bridle: no model configured (set DEEPSEEK_API_KEY or BRIDLE_BASE_URL); using the scripted offline model',
  }
}
