import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { PluginRow } from './app-config.js'
import { AppConfigError, rowName } from './app-config.js'
import { explainLoadError } from './load-error.js'
import type { PluginModules } from './plugin-modules.js'

type Module = Record<string, unknown>

/** A plugin object (`apply` function; zod schemas have one too and are excluded) or a plugin class. */
const looksLikePlugin = (value: unknown): boolean =>
  (typeof value === 'object' &&
    value !== null &&
    typeof (value as { apply?: unknown }).apply === 'function' &&
    !('safeParse' in value)) ||
  (typeof value === 'function' && ('inject' in value || 'Config' in value))

/**
 * Picks the cordis plugin a module provides: its default export, else the module itself when it has an
 * `apply` function (a functional plugin module), else its only plugin-shaped named export.
 */
export function pickPlugin(mod: Module, label: string): unknown {
  if (looksLikePlugin(mod.default)) return mod.default
  if (typeof mod.apply === 'function') return mod
  const candidates = [...new Set(Object.values(mod).filter(looksLikePlugin))]
  if (candidates.length === 1) return candidates[0]
  throw new AppConfigError(
    `plugin "${label}": the module has ${candidates.length === 0 ? 'no' : 'more than one'} cordis plugin export ` +
      '(expected a default export, an `apply` function, or exactly one plugin object or service class)',
  )
}

/** Finds a package's ESM entry under `<dir>/node_modules`, walking up, for packages the CLI itself lacks. */
function resolveFromApp(name: string, dir: string): string | undefined {
  for (let at = resolve(dir); ; at = resolve(at, '..')) {
    const manifestPath = join(at, 'node_modules', name, 'package.json')
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
        exports?: Record<string, unknown> | string
        module?: string
        main?: string
      }
      const root = typeof manifest.exports === 'string' ? manifest.exports : (manifest.exports?.['.'] as unknown)
      const entry =
        typeof root === 'string'
          ? root
          : ((root as { import?: unknown; default?: unknown } | undefined)?.import ??
            (root as { default?: unknown } | undefined)?.default)
      const target =
        typeof entry === 'string'
          ? entry
          : typeof entry === 'object' && entry !== null
            ? (entry as { default?: string }).default
            : undefined
      return join(at, 'node_modules', name, target ?? manifest.module ?? manifest.main ?? 'index.js')
    }
    if (at === resolve(at, '..')) return undefined
  }
}

/** Local plugin files Node cannot import by itself: TypeScript, loaded through `PluginModules`. */
const TYPESCRIPT_FILE = /\.[mc]?tsx?$/

/**
 * Imports the module of a plugin row: a package (resolved from the CLI's own dependencies first, then from
 * the app folder's node_modules) or a local file relative to the app folder. A TypeScript file (`.ts`, `.mts`), or a
 * JavaScript one that imports TypeScript, loads through `modules()` (Vite's module runner); any other JavaScript file
 * through Node's `import()`. Errors name the file and,
 * for a syntax error or a throw at the top level, the line and column in the source.
 */
export async function importPluginModule(
  row: PluginRow,
  dir: string,
  modules: () => Promise<PluginModules>,
): Promise<Module> {
  const label = rowName(row)
  if ('path' in row) {
    const file = resolve(dir, row.path)
    if (!existsSync(file)) throw new AppConfigError(`plugin "${label}": file not found: ${file}`)
    const what = `plugin "${label}": cannot import ${file}`
    if (!TYPESCRIPT_FILE.test(file)) {
      try {
        return (await import(pathToFileURL(file).href)) as Module
      } catch (error) {
        // a JavaScript module that imports TypeScript: Node refuses the extension, the module runner does not
        if ((error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') {
          throw new AppConfigError(`${what}: ${explainNodeImportError(error, dir)}`, { cause: error })
        }
      }
    }
    try {
      return await (await modules()).import(file)
    } catch (error) {
      throw new AppConfigError(`${what}: ${explainLoadError(error, dir, (f) => f)}`, { cause: error })
    }
  }
  try {
    return (await import(row.package)) as Module
  } catch (error) {
    const local = resolveFromApp(row.package, dir)
    if (local) return importOrExplain(pathToFileURL(local).href, `plugin "${label}": cannot import ${local}`, dir)
    throw new AppConfigError(`plugin "${label}": cannot import the package: ${(error as Error).message}`)
  }
}

/**
 * Imports `url`; a module that fails to evaluate (a syntax error, a throwing top level) names the row and file, and
 * where in it when Node says.
 */
async function importOrExplain(url: string, what: string, dir: string): Promise<Module> {
  try {
    return (await import(url)) as Module
  } catch (error) {
    throw new AppConfigError(`${what}: ${explainNodeImportError(error, dir)}`, { cause: error })
  }
}

/**
 * Node's own import errors: a syntax error's position is only in the first line of its stack (`file:line`, with the
 * source line and a caret under the column); a throw's is in its frames.
 */
function explainNodeImportError(error: unknown, dir: string): string {
  if (error instanceof SyntaxError) {
    const lines = (error.stack ?? '').split('\n')
    const where = /^((?:file:\/\/)?\/.+):(\d+)$/.exec(lines[0] ?? '')
    const caret = lines[2]?.indexOf('^') ?? -1
    if (where) {
      const file = where[1]!.startsWith('file://') ? fileURLToPath(where[1]!) : where[1]!
      return `${file}:${where[2]}${caret >= 0 ? `:${caret + 1}` : ''}: ${error.message}`
    }
  }
  return explainLoadError(error, dir, (f) => f)
}
