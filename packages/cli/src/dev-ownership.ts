import { dirname, relative, resolve } from 'node:path'
import { AppConfigError, appLabel, type AppConfig, type PluginRow } from './app-config.js'
import { PLUGIN_FILE } from './hot-reload.js'

/**
 * Who loads each plugin file in `bridle dev`: a file is owned by the watcher or by a `path:` row, never both (both
 * would load it twice, and every reload would then fail with "already registered").
 */
export interface DevOwnership {
  /** `path:` rows whose file is a plugin file in the watched folder: the watcher loads them, with the row's config. */
  watched: Map<string, PluginRow & { path: string }>
  /** `path:` rows outside the watched folder (or not a plugin module file): loaded once at boot, never hot-reloaded. */
  fixed: (PluginRow & { path: string })[]
}

/**
 * Splits the app's `path:` rows between the watcher of `dir` and boot. Two rows naming the same watched file are an
 * `AppConfigError`: the watcher loads a file once, so one row's config would be dropped without a word.
 */
export function planOwnership(app: AppConfig, dir: string): DevOwnership {
  const watched = new Map<string, PluginRow & { path: string }>()
  const fixed: (PluginRow & { path: string })[] = []
  for (const row of app.plugins) {
    if (!('path' in row)) continue
    const file = resolve(app.dir, row.path)
    // the watcher loads the files directly in the folder (it does not descend into subfolders)
    if (dirname(file) === dir && PLUGIN_FILE.test(file)) {
      const first = watched.get(file)
      if (first !== undefined) {
        throw new AppConfigError(
          `${appLabel(app.file)}: plugin "${row.path}": the watched file ${relative(app.dir, file)} is already the row ` +
            `"${first.path}"; bridle dev loads a watched file once, so keep one row`,
        )
      }
      watched.set(file, row)
    } else fixed.push(row)
  }
  return { watched, fixed }
}

/** The lines `bridle dev` prints at start so the user knows what reloads and what does not. */
export function describeOwnership(ownership: DevOwnership, app: AppConfig, dir: string): string[] {
  const lines: string[] = []
  const shown = (file: string) => relative(app.dir, file) || file
  const folder = `${shown(dir)}/`
  for (const [file, row] of ownership.watched) {
    lines.push(
      `bridle dev: ${shown(file)} is a bridle.yaml row inside the watched folder: the watcher loads it ` +
        `(with the row's config${row.config === undefined ? ', none' : ''}) and hot-reloads it; boot does not load it again`,
    )
  }
  if (ownership.fixed.length > 0) {
    lines.push(
      `bridle dev: these bridle.yaml rows load once and do not hot-reload (only .js/.mjs/.ts/.mts files directly in ${folder} do): ` +
        `${ownership.fixed.map((row) => row.path).join(', ')}; restart bridle dev after editing them`,
    )
  }
  return lines
}
