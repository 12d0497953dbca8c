import { readdirSync, existsSync } from 'node:fs'
import { join, relative } from 'node:path'
import { watch, type FSWatcher } from 'chokidar'
import type { PluginRow } from './app-config.js'
import type { BootedApp } from './boot.js'

/** The files a watched folder hot-reloads. */
export const PLUGIN_FILE = /\.(m?js)$/

export interface ReloadReport {
  file: string
  action: 'loaded' | 'reloaded' | 'unloaded' | 'failed'
  /** How many `system-prompt/change` events the swap emitted. */
  changes: number
  error?: string
  /** On `failed`: whether a previous version of the file is still (or again) loaded. */
  kept?: boolean
}

/**
 * Keeps one plugin per `.js`/`.mjs` file of a folder loaded, swapping it when the file changes. A swap
 * disposes the old plugin first (its sections, contexts, tools and listeners go, `system-prompt/change`
 * fires), then loads the fresh module. If the new version fails, the previous version is loaded back, so
 * a broken edit never leaves the agent without the plugin.
 */
export class HotReloader {
  private readonly loaded = new Map<string, { dispose: () => void; plugin: unknown }>()
  private watcher: FSWatcher | undefined
  private queue: Promise<unknown> = Promise.resolve()

  /**
   * `rows` maps an absolute file path to the `path:` row of bridle.yaml it came from, for files the watcher owns
   * instead of boot (`bridle dev`): such a file is loaded with its row's config, once, by the watcher alone.
   */
  constructor(
    private readonly booted: BootedApp,
    private readonly dir: string,
    private readonly onReport: (report: ReloadReport) => void,
    private readonly rows: ReadonlyMap<string, PluginRow> = new Map(),
  ) {}

  /** Loads every plugin file now, then starts watching. Resolves once the watcher is ready. */
  async start(): Promise<void> {
    if (existsSync(this.dir)) {
      for (const name of readdirSync(this.dir).sort()) if (PLUGIN_FILE.test(name)) await this.swap(join(this.dir, name))
    }
    this.watcher = watch(this.dir, {
      ignoreInitial: true,
      depth: 0,
      awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 10 },
    })
    this.watcher.on('all', (event, file) => {
      if ((event === 'add' || event === 'change' || event === 'unlink') && typeof file === 'string') this.enqueue(file)
    })
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()))
  }

  /** Runs `task` after every swap queued before it, so a prompt never sees a half-swapped plugin set. */
  serialize<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task)
    this.queue = next.catch(() => undefined)
    return next
  }

  async close(): Promise<void> {
    await this.watcher?.close()
    await this.queue
    for (const entry of this.loaded.values()) entry.dispose()
    this.loaded.clear()
  }

  private enqueue(file: string) {
    if (PLUGIN_FILE.test(file)) void this.serialize(() => this.swap(file))
  }

  private countChanges(): { stop: () => number } {
    let count = 0
    const off = this.booted.ctx.on('system-prompt/change', () => void (count += 1))
    return { stop: () => (off(), count) }
  }

  private async swap(file: string): Promise<void> {
    const label = relative(this.booted.app.dir, file) || file
    const old = this.loaded.get(file)
    const counter = this.countChanges()
    const row = this.rows.has(file) ? { ...this.rows.get(file)!, path: file } : { path: file }
    const where = `plugin "${label}"`
    if (!existsSync(file)) {
      old?.dispose()
      this.loaded.delete(file)
      this.onReport({ file: label, action: 'unloaded', changes: counter.stop() })
      return
    }
    let plugin: unknown
    try {
      plugin = await this.booted.resolve(row, { fresh: true })
    } catch (error) {
      // the edit does not even import: the loaded version stays as it is
      this.onReport({
        file: label,
        action: 'failed',
        changes: counter.stop(),
        error: (error as Error).message,
        kept: old !== undefined,
      })
      return
    }
    old?.dispose()
    this.loaded.delete(file)
    try {
      this.loaded.set(file, { dispose: await this.booted.start(plugin, row, where), plugin })
      this.onReport({ file: label, action: old ? 'reloaded' : 'loaded', changes: counter.stop() })
    } catch (error) {
      let message = (error as Error).message
      let kept = false
      if (old) {
        try {
          this.loaded.set(file, { dispose: await this.booted.start(old.plugin, row, where), plugin: old.plugin })
          kept = true
        } catch (again) {
          message += `; the previous version failed to start again: ${(again as Error).message}`
        }
      }
      this.onReport({ file: label, action: 'failed', changes: counter.stop(), error: message, kept })
    }
  }
}
