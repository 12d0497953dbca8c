import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const pkg = join(here, '..', '..')
const packages = join(pkg, '..', '..', 'packages')

/**
 * Bundles `child.ts` (with `@bridle/llm` taken from source, like the tests) into one plain ESM file that `node` runs
 * directly, under the package's node_modules so bare imports resolve. Returns the bundle's path.
 */
export async function buildChild(): Promise<string> {
  const { build } = await import('vite')
  const outDir = join(pkg, 'node_modules', '.long-line-child')
  await build({
    configFile: false,
    logLevel: 'warn',
    root: pkg,
    resolve: { alias: [{ find: /^@bridle\/llm$/, replacement: join(packages, 'llm', 'src', 'index.ts') }] },
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
