import { Context } from 'cordis'
import { AgentLoop } from '@bridle/agent-loop'
import { LlmRuntime } from '@bridle/llm'
import { SessionStore } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import type { AppConfig, PluginRow } from './app-config.js'
import { AppConfigError, appLabel, rowName } from './app-config.js'
import { chooseModel, type ModelChoice, type ModelFlags } from './model-selection.js'
import { importPluginModule, pickPlugin } from './plugin-loader.js'
import { appSecrets } from './redaction.js'

const SESSION_JSONL = '@bridle/session-jsonl'

export interface BootOptions extends ModelFlags {
  env?: NodeJS.ProcessEnv
  /** Load a model route (run, dev). `inspect` and `sessions` need none. */
  withModel?: boolean
  /** Receives the values of the key variables the app's model rows read, so output can redact them. */
  secrets?: Set<string>
}

/** `ctx.sessionPersistence`, which the CLI always loads; a clear error if an app config removed it. */
export function persistenceOf(ctx: Context) {
  const persistence = ctx.get('sessionPersistence') as Context['sessionPersistence'] | undefined
  if (!persistence) throw new Error('bridle: session persistence is not loaded (the @bridle/session-jsonl plugin failed to start)')
  return persistence
}

export interface BootedApp {
  ctx: Context
  app: AppConfig
  /** The chosen model; `undefined` when booted without one. */
  model: ModelChoice | undefined
  /** Imports a row's module and picks its plugin; `fresh` bypasses the module cache (`bridle dev`). */
  resolve(row: PluginRow, options?: { fresh?: boolean }): Promise<unknown>
  /** Starts a resolved plugin with the row's config. Returns its disposer. */
  start(plugin: unknown, row: PluginRow): Promise<() => void>
}

interface Fork {
  dispose(): unknown
  error?: unknown
  runtime?: { error?: unknown }
}

/**
 * Validates a row's config with the plugin's own `Config` before cordis sees it, so a bad config fails
 * with the file, the plugin and the field instead of an `internal/error` log line.
 */
function checkConfig(plugin: unknown, row: PluginRow, app: AppConfig) {
  const parse = (plugin as { Config?: unknown }).Config
  if (typeof parse !== 'function') return
  try {
    parse(row.config)
  } catch (error) {
    throw new AppConfigError(`${appLabel(app.file)}: plugin "${rowName(row)}": ${(error as Error).message}`)
  }
}

async function settle(ctx: Context, fork: Fork, label: string, app: AppConfig) {
  await new Promise((resolve) => setImmediate(resolve))
  // a plugin that starts asynchronously (an MCP server's first connection) settles before the first request
  await ctx.lifecycle.flush()
  const error = fork.error ?? fork.runtime?.error
  if (error) {
    fork.dispose()
    throw new AppConfigError(`${appLabel(app.file)}: plugin "${label}" failed to start: ${(error as Error).message ?? String(error)}`)
  }
}

/**
 * Boots an app: the core services (llm, system-prompt, sessions, tools, agent-loop), session persistence
 * (session-jsonl unless the app lists its own row), the model route, then the app's plugin rows in order.
 */
export async function boot(app: AppConfig, options: BootOptions = {}): Promise<BootedApp> {
  const ctx = new Context()
  const env = options.env ?? process.env
  for (const secret of appSecrets(app, env)) options.secrets?.add(secret)
  const model = options.withModel === false ? undefined : chooseModel(app, env, options)

  const resolve = async (row: PluginRow, resolveOptions: { fresh?: boolean } = {}) =>
    pickPlugin(await importPluginModule(row, app.dir, resolveOptions.fresh), rowName(row))
  const start = async (plugin: unknown, row: PluginRow) => {
    checkConfig(plugin, row, app)
    const fork = ctx.plugin(plugin as never, row.config as never) as unknown as Fork
    await settle(ctx, fork, rowName(row), app)
    return () => void fork.dispose()
  }
  const load = async (row: PluginRow) => {
    let plugin: unknown
    try {
      plugin = await resolve(row)
    } catch (error) {
      // the loader names the row; a YAML row's error also names the file it came from
      throw error instanceof AppConfigError ? new AppConfigError(`${appLabel(app.file)}: ${error.message}`) : error
    }
    return start(plugin, row)
  }

  ctx.plugin(LlmRuntime)
  const systemPromptRow: PluginRow = { package: '@bridle/system-prompt', config: app.systemPrompt }
  checkConfig(SystemPrompt, systemPromptRow, app)
  ctx.plugin(SystemPrompt, app.systemPrompt as never)
  ctx.plugin(SessionStore)
  ctx.plugin(ToolRegistry)
  if (!app.plugins.some((row) => rowName(row) === SESSION_JSONL)) ctx.plugin(SessionJsonl, {} as never)
  const loopRow: PluginRow = { package: '@bridle/agent-loop', config: app.agentLoop }
  checkConfig(AgentLoop, loopRow, app)
  ctx.plugin(AgentLoop, (app.agentLoop ?? {}) as never)

  if (model?.row) await load(model.row)
  for (const row of app.plugins) await load(row)
  return { ctx, app, model, resolve, start }
}
