import { isAbsolute } from 'node:path'
import type { ModuleRunner } from 'vite/module-runner'
import type { ViteDevServer } from 'vite'

type Module = Record<string, unknown>

/** Files a plugin module may be written in and that the loader transforms: JavaScript and TypeScript modules. */
export const SOURCE_FILE = /\.(?:[mc]?js|[mc]?ts|jsx|tsx)$/

/**
 * The local modules of the app's plugins, loaded through Vite's module runner: what `bridle dev` hot-reloads and how
 * TypeScript plugins load (the CLI README, "Plugin modules"). Vite transforms each file (TypeScript through oxc, with
 * source maps, so stacks name the source's lines) and keeps a module graph with each module's importers; packages
 * (bare imports) are left to Node's own `import()`, so a plugin shares `cordis` and `@bridle/*` with the CLI. Why this
 * loader and not another is written down in the CLI README.
 *
 * `invalidate(files)` drops exactly those modules and every module that imports them, directly or through others;
 * the next `import()` of a plugin evaluates those again and keeps every other module as it was. Old module instances
 * are dropped with the runner's references to them, so memory stays bounded over many reloads (bench/hot-reload.mjs).
 */
export class PluginModules {
  private constructor(
    private readonly server: ViteDevServer,
    private readonly runner: ModuleRunner,
  ) {}

  /** Starts the transform server and the runner for the app folder `root` (no file watching, no network). */
  static async open(root: string): Promise<PluginModules> {
    const { createServer, createServerModuleRunner } = await import('vite')
    const server = await createServer({
      configFile: false,
      root,
      logLevel: 'silent',
      appType: 'custom',
      publicDir: false,
      envDir: false,
      clearScreen: false,
      // bridle dev watches the files itself (hot-reload.ts); nothing listens on a port
      server: { middlewareMode: true, hmr: false, watch: null, ws: false },
      optimizeDeps: { noDiscovery: true, include: [] },
      // every package is Node's (linked workspace packages too): one cordis and one @bridle/* per process
      ssr: { external: true },
    })
    const runner = createServerModuleRunner(server.environments.ssr!, {
      hmr: false,
      sourcemapInterceptor: 'prepareStackTrace',
    })
    return new PluginModules(server, runner)
  }

  /** Imports `file` (absolute), evaluating whatever of its graph is not evaluated yet. */
  async import(file: string): Promise<Module> {
    // a module whose last evaluation failed is evaluated afresh, with its importers
    this.invalidate(this.failed(file))
    return (await this.runner.import(file)) as Module
  }

  /** The files of the local modules `file` imports, directly or through others, `file` included. */
  graphOf(file: string): Set<string> {
    const files = new Set<string>([file])
    const stack = [...this.nodesOf(file)]
    const seen = new Set(stack)
    while (stack.length > 0) {
      const node = stack.pop()!
      if (isAbsolute(node.file)) files.add(node.file)
      for (const id of node.imports) {
        const child = this.runner.evaluatedModules.getModuleById(id)
        if (child && !seen.has(child)) {
          seen.add(child)
          stack.push(child)
        }
      }
    }
    return files
  }

  /**
   * Forgets the evaluated instances of `files` and of every module importing them (transitively), and their transform
   * results. Returns the files of every module dropped.
   */
  invalidate(files: Iterable<string>): Set<string> {
    const dropped = new Set<string>()
    const stack = [...files].flatMap((file) => [...this.nodesOf(file)])
    const seen = new Set(stack)
    while (stack.length > 0) {
      const node = stack.pop()!
      dropped.add(node.file)
      for (const id of node.importers) {
        const importer = this.runner.evaluatedModules.getModuleById(id)
        if (importer && !seen.has(importer)) {
          seen.add(importer)
          stack.push(importer)
        }
      }
    }
    const graph = this.server.environments.ssr!.moduleGraph
    for (const node of seen) {
      this.runner.evaluatedModules.invalidateModule(node)
      for (const transformed of graph.getModulesByFile(node.file) ?? []) graph.invalidateModule(transformed)
    }
    // a file the runner never evaluated may still have a cached transform (it failed to evaluate)
    for (const file of files)
      for (const transformed of graph.getModulesByFile(file) ?? []) graph.invalidateModule(transformed)
    return dropped
  }

  async close(): Promise<void> {
    await this.runner.close()
    await this.server.close()
  }

  private nodesOf(file: string) {
    return this.runner.evaluatedModules.getModulesByFile(file) ?? new Set()
  }

  /** The modules of `file`'s graph whose evaluation did not finish (a failed import leaves them so). */
  private failed(file: string): string[] {
    return [...this.graphOf(file)].filter((f) => [...this.nodesOf(f)].some((node) => !node.evaluated))
  }
}
