import { readFileSync } from 'node:fs'
import { defineConfig } from 'tsup'

/**
 * The one build configuration of every package (`tsup --config ../../tsup.config.ts`, run in the package folder).
 * Entries come from the package's own manifest: each `exports` target and `bin` path `./dist/x.js` is built from
 * `src/x.ts`, so adding a sub-entry is a one-line change to package.json. tsup emits JavaScript only; the
 * declarations of all packages come from one TypeScript program (scripts/build-types.mjs), which writes them into
 * the same dist/ folders, so tsup's clean leaves `.d.ts` files alone (that build removes stale ones).
 */
interface Manifest {
  exports?: Record<string, string | { import?: string }>
  bin?: string | Record<string, string>
}

function entriesOf(manifest: Manifest): string[] {
  const targets: string[] = []
  for (const [key, value] of Object.entries(manifest.exports ?? {})) {
    if (key === './package.json') continue
    const target = typeof value === 'string' ? value : value.import
    if (target !== undefined) targets.push(target)
  }
  const bin = manifest.bin
  targets.push(...(typeof bin === 'string' ? [bin] : Object.values(bin ?? {})))
  const entries = targets.map((target) => {
    const match = /^\.\/dist\/(.+)\.js$/.exec(target)
    if (match === null) throw new Error(`tsup.config.ts: "${target}" in package.json is not ./dist/<name>.js`)
    return `src/${match[1]}.ts`
  })
  return [...new Set(entries)]
}

export default defineConfig(() => {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Manifest
  return {
    entry: entriesOf(manifest),
    format: ['esm'],
    dts: false,
    clean: ['!**/*.d.ts'],
    sourcemap: true,
    target: 'node20',
    silent: true,
  }
})
