import type { Context } from 'cordis'
import type { SessionPersistence } from '@bridle/session'
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { rowName, type AppConfig } from './app-config.js'
import { boot, persistenceOf, type BootedApp } from './boot.js'
import { resolveApp } from './default-app.js'
import { UsageError } from './errors.js'

/** What the read commands (`sessions`, `inspect`, `view`) work with. */
export interface SessionReader {
  persistence: SessionPersistence
  /**
   * The whole app (every row started, no model), booted on first call and kept until `close`. Only a log written
   * before section manifests needs it: its sections are named by matching the app's sections rendered now.
   */
  appContext(): Promise<Context>
  /** Stops the backend (and the whole app, if it was booted). */
  close(): Promise<void>
}

/**
 * Boots the app read-only (`boot`'s `readOnly`: the session store and the app's persistence row, nothing else),
 * so reading sessions starts no MCP server, runs no context provider and needs no model.
 */
export async function openReader(configFile: string | undefined, root?: string): Promise<SessionReader> {
  const resolved = await resolveApp(configFile)
  const app = root === undefined ? resolved : withSessionRoot(resolved, root)
  const reader = await boot(app, { readOnly: true })
  let whole: Promise<BootedApp> | undefined
  return {
    persistence: persistenceOf(reader.ctx),
    appContext: async () => (await (whole ??= boot(app, { withModel: false }))).ctx,
    async close() {
      const booted = await whole?.catch(() => undefined)
      await booted?.close()
      await reader.close()
    },
  }
}

/**
 * The app with its JSONL sessions read from `root` (`--root DIR`, relative to the current directory): the app's
 * `@bridle/session-jsonl` row with `root` replaced, or that row added. No bridle.yaml is needed for it. A usage error
 * when `root` is not a directory, or when the app keeps its sessions in PostgreSQL.
 */
export function withSessionRoot(app: AppConfig, root: string): AppConfig {
  const dir = resolve(root)
  let isDirectory = false
  try {
    isDirectory = statSync(dir).isDirectory()
  } catch {}
  if (!isDirectory) throw new UsageError(`--root: no such directory: ${dir}`)
  if (app.plugins.some((row) => rowName(row) === '@bridle/session-postgres')) {
    throw new UsageError(
      '--root reads JSONL session files; this app keeps its sessions in PostgreSQL (@bridle/session-postgres)',
    )
  }
  const jsonl = (config: unknown) => ({
    package: '@bridle/session-jsonl',
    config: { ...(typeof config === 'object' && config !== null ? config : {}), root: dir },
  })
  const listed = app.plugins.some((row) => rowName(row) === '@bridle/session-jsonl')
  const plugins = listed
    ? app.plugins.map((row) => (rowName(row) === '@bridle/session-jsonl' ? jsonl(row.config) : row))
    : [...app.plugins, jsonl(undefined)]
  return { ...app, plugins }
}
