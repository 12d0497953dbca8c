import { existsSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { watch, type FSWatcher } from 'chokidar'
import type { PluginRow } from './app-config.js'
import type { BootedApp } from './boot.js'
import { explainLoadError, showPathFrom, type ShowPath } from './load-error.js'
import { pickPlugin } from './plugin-loader.js'
import type { PluginModules } from './plugin-modules.js'

/** The files of a watched folder that are plugins: JavaScript and TypeScript modules, not declaration files. */
export const PLUGIN_FILE = /^(?!.*\.d\.[mc]?ts$).*\.(?:m?js|m?ts)$/

export interface ReloadReport {
  /** The plugin file, relative to the app folder. */
  file: string
  /**
   * `removed`: a plugin file that never loaded was deleted (nothing was unloaded); `unloaded`: a loaded one was.
   */
  action: 'loaded' | 'reloaded' | 'unloaded' | 'removed' | 'failed'
  /** How many `system-prompt/change` events the swap emitted. */
  changes: number
  /** Modules the plugin imports (directly or through others) whose change caused this reload, when not its own file. */
  via?: string[]
  error?: string
  /** On `failed`: whether a previous version of the file is still (or again) loaded. */
  kept?: boolean
}

/** A plugin file's state: the version loaded (if any) and the module files its last import reached. */
interface Entry {
  loaded?: { dispose: () => void; plugin: unknown }
  /** The local module files the plugin imports, directly or not, itself included: a change to any reloads it. */
  graph: Set<string>
}

/**
 * Keeps one plugin per module file of a folder loaded (`.js`, `.mjs`, `.ts`, `.mts`), and reloads exactly the plugins
 * a change reaches: a change to any module reloads every plugin that imports it, directly or through other modules,
 * and no other (docs/plugins-and-scopes.md#hot-reload). Modules load through `PluginModules` (Vite's module runner),
 * which re-evaluates only what the change invalidated. A swap disposes the old plugin first (its sections, contexts,
 * tools and listeners go, `system-prompt/change` fires), then loads the fresh module; if the new version fails to
 * import the old one stays, and if it fails to start the old one is started again.
 */
export class HotReloader {
  private readonly entries = new Map<string, Entry>()
  private readonly pending = new Set<string>()
  private watcher: FSWatcher | undefined
  private modules: PluginModules | undefined
  private queue: Promise<unknown> = Promise.resolve()
  private readonly show: ShowPath

  /**
   * `rows` maps an absolute file path to the `path:` row of bridle.yaml it came from, for files the watcher owns
   * instead of boot (`bridle dev`): such a file is loaded with its row's config, once, by the watcher alone.
   */
  constructor(
    private readonly booted: BootedApp,
    private readonly dir: string,
    private readonly onReport: (report: ReloadReport) => void,
    private readonly rows: ReadonlyMap<string, PluginRow> = new Map(),
  ) {
    this.show = showPathFrom(booted.app.dir)
  }

  /**
   * Loads every plugin file now, then starts watching them and what they import. Resolves once the watcher is ready.
   * `watch: false` loads without watching: reloads happen only through `reload()` (bench/hot-reload.mjs).
   */
  async start({ watch: watching = true }: { watch?: boolean } = {}): Promise<void> {
    this.modules = await this.booted.modules()
    if (existsSync(this.dir)) {
      for (const name of readdirSync(this.dir).sort()) if (PLUGIN_FILE.test(name)) await this.swap(join(this.dir, name))
    }
    if (!watching) return
    this.watcher = watch([this.dir, ...this.watchedFiles()], {
      ignoreInitial: true,
      depth: 0,
      awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 10 },
    })
    this.watcher.on('all', (event, file) => {
      if ((event === 'add' || event === 'change' || event === 'unlink') && typeof file === 'string') this.changed(file)
    })
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()))
  }

  /** Runs `task` after every swap queued before it, so a prompt never sees a half-swapped plugin set. */
  serialize<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task)
    this.queue = next.catch(() => undefined)
    return next
  }

  /**
   * Reloads what a change of `files` (absolute paths) reaches, as the watcher does on a save: every plugin file among
   * them and every plugin importing one of them. Resolves when the reloads are done.
   */
  reload(files: Iterable<string>): Promise<void> {
    for (const file of files) this.pending.add(file)
    return this.serialize(() => this.drain())
  }

  async close(): Promise<void> {
    await this.watcher?.close()
    await this.queue
    for (const entry of this.entries.values()) entry.loaded?.dispose()
    this.entries.clear()
  }

  private changed(file: string) {
    if (this.pending.has(file)) return
    this.pending.add(file)
    void this.serialize(() => this.drain())
  }

  /** Every change seen since the last drain, as one batch: each plugin it reaches reloads once. */
  private async drain(): Promise<void> {
    if (this.pending.size === 0) return
    const files = [...this.pending]
    this.pending.clear()
    const roots = new Set(files.filter((file) => this.isPluginFile(file)))
    for (const [root, entry] of this.entries) if (files.some((file) => entry.graph.has(file))) roots.add(root)
    this.modules!.invalidate(files)
    for (const root of [...roots].sort()) {
      const via = files.filter((file) => file !== root && this.entries.get(root)?.graph.has(file))
      await this.swap(root, via)
    }
  }

  private isPluginFile(file: string): boolean {
    return dirname(file) === this.dir && PLUGIN_FILE.test(file)
  }

  /** Module files to watch beyond the folder itself (what the plugins import). */
  private watchedFiles(): string[] {
    return [...new Set([...this.entries.values()].flatMap((entry) => [...entry.graph]))].filter(
      (file) => !this.isPluginFile(file),
    )
  }

  private countChanges(): { stop: () => number } {
    let count = 0
    const off = this.booted.ctx.on('system-prompt/change', () => void (count += 1))
    return { stop: () => (off(), count) }
  }

  /** The plugin's import graph now, watched from now on (a failed import keeps what it reached, and the failing file). */
  private track(file: string, error?: unknown): Set<string> {
    const graph = this.modules!.graphOf(file)
    const failing = failingFile(error)
    if (failing !== undefined) graph.add(failing)
    const entry = this.entries.get(file)
    if (entry) entry.graph = graph
    else this.entries.set(file, { graph })
    const outside = [...graph].filter((f) => !this.isPluginFile(f))
    if (outside.length > 0) this.watcher?.add(outside)
    return graph
  }

  private async swap(file: string, via: string[] = []): Promise<void> {
    const label = this.show(file)
    const old = this.entries.get(file)?.loaded
    const counter = this.countChanges()
    const row = this.rows.has(file) ? { ...this.rows.get(file)!, path: file } : { path: file }
    const report = (r: Omit<ReloadReport, 'file' | 'changes'>) =>
      this.onReport({
        file: label,
        changes: counter.stop(),
        ...(via.length > 0 ? { via: via.map(this.show) } : {}),
        ...r,
      })
    if (!existsSync(file)) {
      old?.dispose()
      this.entries.delete(file)
      return report({ action: old ? 'unloaded' : 'removed' })
    }
    let plugin: unknown
    try {
      plugin = pickPlugin(await this.modules!.import(file), label)
      this.track(file)
    } catch (error) {
      // the edit does not even import: the loaded version stays as it is
      this.track(file, error)
      return report({ action: 'failed', error: explainLoadError(error, this.booted.app.dir, this.show), kept: !!old })
    }
    old?.dispose()
    const entry = this.entries.get(file)!
    entry.loaded = undefined
    try {
      entry.loaded = { dispose: await this.booted.start(plugin, row, `plugin "${label}"`), plugin }
      report({ action: old ? 'reloaded' : 'loaded' })
    } catch (error) {
      let message = this.startFailure(error)
      let kept = false
      if (old) {
        try {
          entry.loaded = { dispose: await this.booted.start(old.plugin, row, `plugin "${label}"`), plugin: old.plugin }
          kept = true
        } catch (again) {
          message += `; the previous version failed to start again: ${this.startFailure(again)}`
        }
      }
      report({ action: 'failed', error: message, kept })
    }
  }

  /** A start failure in one line: what threw and where in the source, and who registered a duplicate name first. */
  private startFailure(error: unknown): string {
    const cause = (error as { cause?: unknown }).cause ?? error
    let message = `failed to start: ${explainLoadError(cause, this.booted.app.dir, this.show)}`
    const first = (cause as { registeredFirstBy?: { plugin: unknown; name: string } }).registeredFirstBy
    if (first !== undefined) message += ` (registered first by ${this.describePlugin(first.plugin, first.name)})`
    return message
  }

  /** A loaded plugin by its file (or row); any other by its cordis name. */
  describePlugin(plugin: unknown, name: string): string {
    for (const [file, entry] of this.entries) if (entry.loaded?.plugin === plugin) return this.show(file)
    return this.booted.describePlugin(plugin) ?? `plugin "${name || '(anonymous)'}"`
  }
}

/** The file a transform or parse error is in (Vite names it), if any. */
function failingFile(error: unknown): string | undefined {
  const e = error as { errors?: { loc?: { file?: string }; id?: string }[]; loc?: { file?: string }; id?: string }
  const file = e?.errors?.[0]?.loc?.file ?? e?.errors?.[0]?.id ?? e?.loc?.file ?? e?.id
  return typeof file === 'string' && file.startsWith('/') ? file : undefined
}
