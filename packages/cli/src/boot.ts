import { Context } from 'cordis'
import { LlmRuntime, holdSecrets } from '@bridle/llm'
import { shutdown } from '@bridle/scope'
import { SessionStore } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import type { AppConfig, PluginRow } from './app-config.js'
import { AppConfigError, appLabel, rowName } from './app-config.js'
import { appSecrets, chooseModel, type ModelChoice, type ModelFlags } from './model-selection.js'
import { importPluginModule, pickPlugin } from './plugin-loader.js'
import { holdCordisLog, type HeldLog } from './cordis-log.js'
import type { PluginModules } from './plugin-modules.js'

/** Rows that provide `ctx.sessionPersistence`; when an app lists none, the CLI loads session-jsonl itself. */
const PERSISTENCE_ROWS = new Set(['@bridle/session-jsonl', '@bridle/session-postgres'])

/** True for a row that provides `ctx.sessionPersistence` (the only rows a read-only boot starts). */
const isPersistenceRow = (row: PluginRow): boolean => PERSISTENCE_ROWS.has(rowName(row))

export interface BootOptions extends ModelFlags {
  env?: NodeJS.ProcessEnv
  /** Load a model route (run, dev). `inspect` and `sessions` need none. */
  withModel?: boolean
  /** Rows `boot` leaves to the caller: `bridle dev` loads the `path:` rows its watcher owns itself. */
  skipRow?: (row: PluginRow) => boolean
  /**
   * Start only what reading stored sessions needs (`sessions`, `inspect`, `view`): the session store and the
   * app's persistence row with its config (session-jsonl by default). No model route, no system prompt, no other
   * row: an MCP row launches no server, and no context provider runs.
   */
  readOnly?: boolean
}

/** `ctx.sessionPersistence`, which the CLI always loads; a clear error if an app config removed it. */
export function persistenceOf(ctx: Context) {
  const persistence = ctx.get('sessionPersistence') as Context['sessionPersistence'] | undefined
  if (!persistence)
    throw new Error('bridle: session persistence is not loaded (the session persistence plugin failed to start)')
  return persistence
}

export interface BootedApp {
  ctx: Context
  app: AppConfig
  /** The chosen model; `undefined` when booted without one. */
  model: ModelChoice | undefined
  /** Imports a row's module and picks its plugin. */
  resolve(row: PluginRow): Promise<unknown>
  /**
   * The app's plugin module loader (Vite's module runner, started on first use and closed with the app): TypeScript
   * rows load through it, and `bridle dev` hot-reloads through it.
   */
  modules(): Promise<PluginModules>
  /** How messages name a plugin a row of the app loaded (`<file>: plugin "<row>"`), or `undefined`. */
  describePlugin(plugin: unknown): string | undefined
  /**
   * Starts a resolved plugin with the row's config. Returns its disposer. Errors name the row as `where` says
   * (default: the app file and the row).
   */
  start(plugin: unknown, row: PluginRow, where?: string): Promise<() => void>
  /**
   * Disposes every plugin and waits until session persistence has stopped (its final flush written, and for
   * session-postgres its leases given back), so the next command can resume a session at once.
   */
  close(): Promise<void>
}

interface Fork {
  dispose(): unknown
  error?: unknown
  runtime?: { error?: unknown }
}

/** How errors name a row of the app file: `<file>: plugin "<row>"`. */
const rowWhere = (app: AppConfig, row: PluginRow) => `${appLabel(app.file)}: plugin "${rowName(row)}"`

/**
 * How errors name the model row: the app's own row, or the environment variable or flag that selected a route,
 * so an environment mistake is never blamed on a bridle.yaml row that does not exist.
 */
function modelWhere(app: AppConfig, model: ModelChoice, row: PluginRow): string {
  return model.origin === 'app' ? rowWhere(app, row) : `${model.origin} (model route ${rowName(row)})`
}

/**
 * Validates a row's config with the plugin's own `Config` before cordis sees it, so a bad config fails
 * with the file, the plugin and the field instead of an `internal/error` log line.
 */
function checkConfig(plugin: unknown, row: PluginRow, where: string) {
  const parse = (plugin as { Config?: unknown }).Config
  if (typeof parse !== 'function') return
  try {
    parse(row.config)
  } catch (error) {
    throw new AppConfigError(`${where}: ${(error as Error).message}`, { cause: error })
  }
}

/**
 * Waits a turn for the fork to apply and throws the one line that says it failed. What cordis logged about it
 * meanwhile (a stack dump on stdout) is held and dropped: the stack shows only with `--verbose`.
 */
async function settle(ctx: Context, fork: Fork, where: string, held: HeldLog) {
  await new Promise((resolve) => setImmediate(resolve))
  // a plugin that starts asynchronously (an MCP server's first connection) settles before the first request
  await ctx.lifecycle.flush()
  const error = fork.error ?? fork.runtime?.error
  if (!error) return held.release()
  held.drop()
  fork.dispose()
  throw new AppConfigError(`${where} failed to start: ${(error as Error).message ?? String(error)}`, { cause: error })
}

/** The core packages an agent needs beyond the session store: imported only by a boot that runs one. */
async function agentPackages() {
  const [{ SystemPrompt }, { ToolRegistry }, { AgentLoop }] = await Promise.all([
    import('@bridle/system-prompt'),
    import('@bridle/tools'),
    import('@bridle/agent-loop'),
  ])
  return { SystemPrompt, ToolRegistry, AgentLoop }
}

/**
 * Boots an app: the core services (llm, system-prompt, sessions, tools, agent-loop), session persistence
 * (session-jsonl unless the app lists a persistence row, such as session-postgres), the model route, then the app's
 * plugin rows in order. With `readOnly`, only llm, sessions and the persistence row.
 */
export async function boot(app: AppConfig, options: BootOptions = {}): Promise<BootedApp> {
  const ctx = new Context()
  const env = options.env ?? process.env
  // the keys the app's model rows read are filtered from everything stored or printed (docs/security.md)
  holdSecrets(...appSecrets(app, env))
  const readOnly = options.readOnly === true
  const model = options.withModel === false || readOnly ? undefined : chooseModel(app, env, options)

  let loader: Promise<PluginModules> | undefined
  const modules = () =>
    (loader ??= import('./plugin-modules.js').then(({ PluginModules }) => PluginModules.open(app.dir)))
  const resolve = async (row: PluginRow) => pickPlugin(await importPluginModule(row, app.dir, modules), rowName(row))
  const rows = new Map<unknown, PluginRow>()
  const start = async (plugin: unknown, row: PluginRow, where = rowWhere(app, row)) => {
    checkConfig(plugin, row, where)
    const held = holdCordisLog()
    let fork: Fork
    try {
      fork = ctx.plugin(plugin as never, row.config as never) as unknown as Fork
    } catch (error) {
      held.release()
      throw error
    }
    await settle(ctx, fork, where, held)
    return () => void fork.dispose()
  }
  const load = async (row: PluginRow, where = rowWhere(app, row)) => {
    let plugin: unknown
    try {
      plugin = await resolve(row)
    } catch (error) {
      // the loader names the row; a YAML row's error also names the file it came from
      throw error instanceof AppConfigError
        ? new AppConfigError(`${appLabel(app.file)}: ${error.message}`, { cause: error.cause })
        : error
    }
    const dispose = await start(plugin, row, where)
    rows.set(plugin, row)
    return dispose
  }

  // a read-only boot runs no agent, so it does not load the packages that make one
  const full = readOnly ? undefined : await agentPackages()
  ctx.plugin(LlmRuntime)
  if (full) {
    const { SystemPrompt } = full
    const systemPromptRow: PluginRow = { package: '@bridle/system-prompt', config: app.systemPrompt }
    checkConfig(SystemPrompt, systemPromptRow, `${appLabel(app.file)}: systemPrompt`)
    ctx.plugin(SystemPrompt, app.systemPrompt as never)
  }
  ctx.plugin(SessionStore)
  if (full) ctx.plugin(full.ToolRegistry)
  if (!app.plugins.some(isPersistenceRow)) ctx.plugin(SessionJsonl, {} as never)
  if (full) {
    const { AgentLoop } = full
    const loopRow: PluginRow = { package: '@bridle/agent-loop', config: app.agentLoop }
    checkConfig(AgentLoop, loopRow, `${appLabel(app.file)}: agentLoop`)
    ctx.plugin(AgentLoop, (app.agentLoop ?? {}) as never)
  }

  if (model?.row) await load(model.row, modelWhere(app, model, model.row))
  for (const row of app.plugins) {
    if (options.skipRow?.(row) || (readOnly && !isPersistenceRow(row))) continue
    await load(row)
  }
  const close = async () => {
    await shutdown(ctx)
    // a loader that never opened has nothing to close (its failure was reported where it was needed)
    await (await loader?.catch(() => undefined))?.close()
  }
  const describePlugin = (plugin: unknown) => {
    const row = rows.get(plugin)
    return row === undefined ? undefined : rowWhere(app, row)
  }
  return { ctx, app, model, resolve, start, close, modules, describePlugin }
}
