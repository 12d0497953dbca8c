import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const pkg = join(here, '..', '..')
const repo = join(pkg, '..', '..')

/**
 * Bundles `child.ts` (with `@bridle/*` taken from source, like the tests) into one plain ESM file that `node` runs
 * directly. The bundle lives under the package's node_modules so its bare imports (`cordis`, `zod`) resolve.
 * Returns the bundle's path.
 */
export async function buildChild(): Promise<string> {
  const { build } = await import('vite')
  const sources: Record<string, string> = {
    llm: 'packages/llm',
    scope: 'packages/scope',
    session: 'packages/session',
    'session-jsonl': 'packages/session-jsonl',
    'system-prompt': 'packages/system-prompt',
    tools: 'packages/tools',
    inbox: 'packages/inbox',
    'agent-loop': 'packages/agent-loop',
    'plugin-compaction': 'plugins/compaction',
  }
  const alias = Object.entries(sources).map(([name, folder]) => {
    const replacement = join(repo, folder, 'src', 'index.ts')
    if (!existsSync(replacement)) throw new Error(`missing ${replacement}`)
    return { find: new RegExp(`^@bridle/${name}$`), replacement }
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
