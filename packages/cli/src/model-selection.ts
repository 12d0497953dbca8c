import { namedCredentials, urlCredentials } from '@bridle/llm'
import type { AppConfig, PluginRow } from './app-config.js'
import { rowName } from './app-config.js'
import { UsageError } from './errors.js'

export { UsageError } from './errors.js'

const LLM_OPENAI = '@bridle/llm-openai'
const LLM_ANTHROPIC = '@bridle/llm-anthropic'
/** The routes `--provider` names. */
export const PROVIDERS = ['openai-compatible', 'deepseek', 'anthropic'] as const
const DEFAULT_CLAUDE = 'claude-sonnet-4-5'
const SCRIPTED_MODEL = '@bridle/plugin-scripted-model'

export interface ModelChoice {
  /** The model plugin row to add, or `undefined` when the app's own rows already provide the model. */
  row: PluginRow | undefined
  provider: string
  model: string
  /** The one stderr line that says which model answers. */
  notice: string
  scripted: boolean
  /**
   * Where the route came from, so an error in the model row names it: the app's own row (`app`), an environment
   * variable or flag (`BRIDLE_BASE_URL`, `--base-url`, `DEEPSEEK_API_KEY`), or the scripted fallback.
   */
  origin: 'app' | 'BRIDLE_BASE_URL' | '--base-url' | 'DEEPSEEK_API_KEY' | 'ANTHROPIC_API_KEY' | 'scripted'
}

export interface ModelFlags {
  model?: string
  baseUrl?: string
  /** One of `PROVIDERS`: picks that environment route even when another one's variables are set too. */
  provider?: string
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
            'Set DEEPSEEK_API_KEY, ANTHROPIC_API_KEY or BRIDLE_BASE_URL (with BRIDLE_MODEL) to talk to a real one.',
        },
      ],
    },
  ],
}

/**
 * Picks the model route for `bridle run` (README.md#choosing-the-model): an app row for `@bridle/llm-openai` or
 * `@bridle/llm-anthropic` wins as written; else `--provider` names the environment route; else `BRIDLE_BASE_URL`
 * (or `--base-url`), else `DEEPSEEK_API_KEY`, else `ANTHROPIC_API_KEY`, else the scripted model — which is always
 * announced, never silent.
 */
export function chooseModel(app: AppConfig, environment: NodeJS.ProcessEnv, flags: ModelFlags = {}): ModelChoice {
  // an empty variable (`BRIDLE_MODEL=`) counts as unset, never as an empty model id
  const env = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== '')) as NodeJS.ProcessEnv
  if (flags.provider !== undefined && !(PROVIDERS as readonly string[]).includes(flags.provider)) {
    throw new UsageError(`--provider ${flags.provider}: unknown route; use one of ${PROVIDERS.join(', ')}`)
  }
  const own = app.plugins.find((row) => [LLM_OPENAI, LLM_ANTHROPIC, SCRIPTED_MODEL].includes(rowName(row)))
  if (own) {
    const config = (own.config ?? {}) as { provider?: string; model?: string; models?: { id: string }[] }
    const scripted = rowName(own) === SCRIPTED_MODEL
    const claude = rowName(own) === LLM_ANTHROPIC
    const provider =
      app.agent.provider ?? config.provider ?? (scripted ? 'scripted' : claude ? 'anthropic' : 'deepseek')
    const model =
      flags.model ??
      app.agent.model ??
      config.model ??
      config.models?.[0]?.id ??
      (scripted ? 'scripted-demo' : claude ? DEFAULT_CLAUDE : 'deepseek-chat')
    return {
      row: undefined,
      provider,
      model,
      scripted,
      origin: 'app',
      notice: `bridle: model ${provider}/${model} (from the app config)`,
    }
  }
  if (app.agent.provider !== undefined) {
    throw new UsageError(
      `${app.file ?? 'bridle'}: agent.provider "${app.agent.provider}" names a route, but the app lists no model plugin row ` +
        `(${LLM_OPENAI}, ${LLM_ANTHROPIC} or ${SCRIPTED_MODEL}) to provide it; add one, or remove agent.provider to use the environment's model`,
    )
  }
  if (
    flags.provider === 'anthropic' ||
    (flags.provider === undefined &&
      !flags.baseUrl &&
      !env.BRIDLE_BASE_URL &&
      !env.DEEPSEEK_API_KEY &&
      env.ANTHROPIC_API_KEY)
  ) {
    return anthropicRoute(app, env, flags)
  }
  if (flags.provider === 'deepseek' && !env.DEEPSEEK_API_KEY) {
    throw new UsageError('--provider deepseek needs DEEPSEEK_API_KEY')
  }
  if (flags.provider === 'openai-compatible' && !flags.baseUrl && !env.BRIDLE_BASE_URL) {
    throw new UsageError('--provider openai-compatible needs BRIDLE_BASE_URL (or --base-url) and BRIDLE_MODEL')
  }
  const baseURL = flags.provider === 'deepseek' ? undefined : (flags.baseUrl ?? env.BRIDLE_BASE_URL)
  if (baseURL)
    refuseUrlCredentials(baseURL, flags.baseUrl !== undefined ? '--base-url' : 'BRIDLE_BASE_URL', 'BRIDLE_API_KEY')
  if (baseURL) {
    const model = flags.model ?? env.BRIDLE_MODEL ?? app.agent.model
    if (!model)
      throw new UsageError(
        `BRIDLE_MODEL (or -m) must name the model served at ${flags.baseUrl !== undefined ? '--base-url' : 'BRIDLE_BASE_URL'}`,
      )
    const windowText = env.BRIDLE_CONTEXT_WINDOW
    const contextWindow = windowText === undefined || windowText === '' ? 32768 : Number(windowText)
    if (!Number.isSafeInteger(contextWindow) || contextWindow <= 0) {
      throw new UsageError(`BRIDLE_CONTEXT_WINDOW must be a positive integer, got "${windowText}"`)
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
      origin: flags.baseUrl !== undefined ? '--base-url' : 'BRIDLE_BASE_URL',
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
      origin: 'DEEPSEEK_API_KEY',
      notice: `bridle: model deepseek/${model} via https://api.deepseek.com`,
    }
  }
  if (flags.model !== undefined) {
    throw new UsageError(
      `-m ${flags.model}: no model route is configured to serve it; set BRIDLE_BASE_URL (an OpenAI-compatible ` +
        'server), DEEPSEEK_API_KEY or ANTHROPIC_API_KEY, or add a model row to bridle.yaml (the scripted offline model takes no -m)',
    )
  }
  return {
    row: { package: SCRIPTED_MODEL, config: app.scripted ?? DEFAULT_SCRIPT },
    provider: (app.scripted?.provider as string | undefined) ?? 'scripted',
    model: (app.scripted?.model as string | undefined) ?? 'scripted-demo',
    scripted: true,
    origin: 'scripted',
    notice:
      'bridle: no model configured (set DEEPSEEK_API_KEY, ANTHROPIC_API_KEY or BRIDLE_BASE_URL); using the scripted offline model',
  }
}

/**
 * Refuses a base URL that carries a credential (userinfo, or a query parameter whose name marks one), naming where it
 * came from and the parameter, never the value (docs/security.md#urls), and where the key belongs instead.
 */
function refuseUrlCredentials(url: string, source: string, keyVariable: string): void {
  const credentials = urlCredentials(url)
  if (!credentials.userinfo && credentials.parameters.length === 0) return
  const what = credentials.userinfo
    ? 'must not contain credentials (user:password@)'
    : `must not carry a credential in its query string (parameter ${credentials.parameters.map((n) => `"${n}"`).join(', ')})`
  throw new UsageError(`${source} ${what}; put the key in ${keyVariable}`)
}

/**
 * The Anthropic route from the environment: `ANTHROPIC_API_KEY` (required), the Messages API unless
 * `--base-url`/`ANTHROPIC_BASE_URL` names another endpoint (the key is still read from `ANTHROPIC_API_KEY`).
 */
function anthropicRoute(app: AppConfig, env: NodeJS.ProcessEnv, flags: ModelFlags): ModelChoice {
  if (!env.ANTHROPIC_API_KEY) throw new UsageError('--provider anthropic needs ANTHROPIC_API_KEY')
  const baseURL = flags.baseUrl ?? env.ANTHROPIC_BASE_URL
  if (baseURL) {
    refuseUrlCredentials(
      baseURL,
      flags.baseUrl !== undefined ? '--base-url' : 'ANTHROPIC_BASE_URL',
      'ANTHROPIC_API_KEY',
    )
  }
  const model = flags.model ?? env.BRIDLE_MODEL ?? app.agent.model ?? DEFAULT_CLAUDE
  return {
    row: { package: LLM_ANTHROPIC, config: baseURL ? { baseURL, apiKeyEnv: 'ANTHROPIC_API_KEY' } : {} },
    provider: 'anthropic',
    model,
    scripted: false,
    origin: 'ANTHROPIC_API_KEY',
    notice: `bridle: model anthropic/${model} via ${baseURL ?? 'https://api.anthropic.com'}`,
  }
}

/**
 * The credentials the app's model rows hold: the values of the key variables they name (`apiKeyEnv`; by default
 * DEEPSEEK_API_KEY for `@bridle/llm-openai` rows and ANTHROPIC_API_KEY for `@bridle/llm-anthropic` rows), the values
 * of configured headers whose names mark a credential (`x-api-key`), and any credential in a row's `baseURL`. Known
 * before any row loads, so a read-only `inspect` filters them too.
 */
export function appSecrets(app: AppConfig, env: NodeJS.ProcessEnv): string[] {
  const values: string[] = []
  for (const row of app.plugins) {
    const claude = rowName(row) === LLM_ANTHROPIC
    if (rowName(row) !== LLM_OPENAI && !claude) continue
    const config = (row.config ?? {}) as { apiKeyEnv?: unknown; baseURL?: unknown; headers?: unknown }
    const name =
      typeof config.apiKeyEnv === 'string'
        ? config.apiKeyEnv
        : claude
          ? 'ANTHROPIC_API_KEY'
          : config.baseURL === undefined
            ? 'DEEPSEEK_API_KEY'
            : undefined
    const value = name === undefined ? undefined : env[name]
    if (value) values.push(value)
    if (typeof config.headers === 'object' && config.headers !== null)
      values.push(...namedCredentials(config.headers as Record<string, string>))
    if (typeof config.baseURL === 'string') values.push(...urlCredentials(config.baseURL).values)
  }
  return values
}
