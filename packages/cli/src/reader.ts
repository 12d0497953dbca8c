import type { Context } from 'cordis'
import type { SessionPersistence } from '@bridle/session'
import { boot, persistenceOf, type BootedApp } from './boot.js'
import { resolveApp } from './default-app.js'

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
export async function openReader(configFile: string | undefined): Promise<SessionReader> {
  const app = await resolveApp(configFile)
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
