import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const pkg = join(here, '..', '..')
const packages = join(pkg, '..')

/**
 * Bundles `child.ts` (with `@bridle/*` taken from source, like the tests) into one plain ESM file that `node` runs
 * directly. The bundle lives under the package's node_modules so its bare imports (`cordis`, `zod`) resolve.
 * Returns the bundle's path.
 */
export async function buildChild(): Promise<string> {
  const { build } = await import('vite')
  const alias = ['llm', 'scope', 'session'].map((name) => {
    const replacement = join(packages, name, 'src', 'index.ts')
    if (!existsSync(replacement)) throw new Error(`missing ${replacement}`)
    return { find: new RegExp(`^@bridle/${name}$`), replacement }
  })
  alias.push({
    find: /^@bridle\/persistence-conformance\/script$/,
    replacement: join(packages, 'persistence-conformance', 'src', 'script.ts'),
  })
  const outDir = join(pkg, 'node_modules', '.crash-child')
  await build({
    configFile: false,
    logLevel: 'warn',
    root: pkg,
    resolve: { alias },
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
