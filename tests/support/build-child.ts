import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sourceAliases } from './source-aliases.js'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

export interface BuildChildOptions {
  /**
   * Bundle the third-party dependencies too, not only the Bridle sources: a test that starts hundreds of children
   * wants one file, which starts much faster than a tree of modules.
   */
  bundleDependencies?: boolean
}

/**
 * Bundles a crash or exit test's child script (the Bridle packages taken from source, like the tests) into one
 * plain ESM file that `node` runs directly, so the test kills a real process running today's sources without a
 * build. The bundle lives under the node_modules of the package that holds the script, so bare imports (`cordis`,
 * `zod`, `openai`) resolve as they do for the package. Returns the bundle's path.
 */
export async function buildChild(entry: string, options: BuildChildOptions = {}): Promise<string> {
  const { build } = await import('vite')
  const pkg = packageOf(entry)
  // One folder per build: test files build in parallel, and one build must not empty another's folder.
  const parent = join(pkg, 'node_modules', '.test-child')
  removeStale(parent)
  const outDir = join(parent, `${process.pid}-${randomBytes(4).toString('hex')}`)
  await build({
    configFile: false,
    logLevel: 'warn',
    root: pkg,
    resolve: { alias: sourceAliases(repo) },
    ...(options.bundleDependencies ? { ssr: { noExternal: true } } : {}),
    build: {
      ssr: entry,
      outDir,
      emptyOutDir: true,
      minify: false,
      target: 'node20',
      rollupOptions: { output: { format: 'es', entryFileNames: 'child.mjs' } },
    },
  })
  return join(outDir, 'child.mjs')
}

/** The folder of the package (nearest `package.json`) that holds `file`. */
function packageOf(file: string): string {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
  }
  throw new Error(`no package.json above ${file}`)
}

/** Removes bundles older than an hour (left by earlier runs, or by a run that was killed). */
function removeStale(parent: string): void {
  if (!existsSync(parent)) return
  for (const name of readdirSync(parent)) {
    const path = join(parent, name)
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true })
  }
}
