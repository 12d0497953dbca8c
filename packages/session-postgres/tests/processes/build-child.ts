import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const pkg = join(here, '..', '..')
const repo = join(pkg, '..', '..')

/** `@bridle/x` → its `src/index.ts`, `@bridle/x/y` → `src/y.ts`, for every workspace package (as the tests see them). */
function sourceAliases(): { find: RegExp; replacement: string }[] {
  const alias: { find: RegExp; replacement: string }[] = []
  for (const group of ['packages', 'plugins']) {
    for (const name of readdirSync(join(repo, group))) {
      const manifest = join(repo, group, name, 'package.json')
      if (!existsSync(manifest)) continue
      const id = (JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name
      const escaped = id.replace(/[/.-]/g, (c) => `\\${c}`)
      alias.push({ find: new RegExp(`^${escaped}$`), replacement: join(repo, group, name, 'src', 'index.ts') })
      alias.push({ find: new RegExp(`^${escaped}/(.+)$`), replacement: join(repo, group, name, 'src', '$1.ts') })
    }
  }
  return alias
}

/**
 * Bundles `child.ts` (the Bridle packages taken from source, like the tests) with all its dependencies into one ESM
 * file that `node` runs directly: the crash test starts hundreds of these, and one file starts much faster than a
 * tree of modules. Returns the bundle's path.
 */
export async function buildChild(): Promise<string> {
  const { build } = await import('vite')
  // One folder per build: test files build in parallel, and one build must not empty another's folder.
  const parent = join(pkg, 'node_modules', '.process-child')
  removeStale(parent)
  const outDir = join(parent, `${process.pid}-${randomBytes(4).toString('hex')}`)
  await build({
    configFile: false,
    logLevel: 'warn',
    root: pkg,
    resolve: { alias: sourceAliases() },
    ssr: { noExternal: true },
    build: {
      ssr: join(here, 'child.ts'),
      outDir,
      emptyOutDir: true,
      minify: false,
      target: 'node20',
      rollupOptions: { output: { format: 'es', entryFileNames: 'child.mjs' } },
    },
  })
  return join(outDir, 'child.mjs')
}

/** Removes bundles older than an hour (left by earlier runs). */
function removeStale(parent: string): void {
  if (!existsSync(parent)) return
  for (const name of readdirSync(parent)) {
    const path = join(parent, name)
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true })
  }
}
