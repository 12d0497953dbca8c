import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'

const root = fileURLToPath(new URL('.', import.meta.url))
const folders = ['packages', 'plugins'].flatMap((group) =>
  readdirSync(join(root, group)).map((name) => join(group, name)),
)

// Tests import sibling packages from source, so a test run never depends on a stale dist/.
// `@bridle/x` maps to src/index.ts and a sub-entry `@bridle/x/y` to src/y.ts.
const alias: { find: RegExp; replacement: string }[] = []
for (const folder of folders) {
  const manifest = join(root, folder, 'package.json')
  if (!existsSync(manifest)) continue
  const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }
  const escaped = name.replace(/[/.-]/g, (c) => `\\${c}`)
  alias.push({ find: new RegExp(`^${escaped}$`), replacement: join(root, folder, 'src/index.ts') })
  alias.push({ find: new RegExp(`^${escaped}/(.+)$`), replacement: join(root, folder, 'src/$1.ts') })
}

const captureLogs = join(root, 'tests/support/capture-logs.ts')
const fastCheckSeed = join(root, 'tests/support/fast-check-seed.ts')

const project = (name: string, dir: string) => ({
  resolve: { alias },
  test: {
    name,
    root: join(root, dir),
    include: ['tests/**/*.spec.ts'],
    // Every project seeds fast-check (tests/support/fast-check-seed.ts) and captures logger output per test
    // (tests/support/logs.ts); a package's tests/setup.ts (e.g. llm-openai's no-network guard) runs after them,
    // before each of its test files.
    setupFiles: [
      fastCheckSeed,
      captureLogs,
      ...(existsSync(join(root, dir, 'tests/setup.ts')) ? ['tests/setup.ts'] : []),
    ],
    // a package's tests/global-setup.mjs (e.g. the throwaway PostgreSQL server) runs once per run, in the main process
    globalSetup: existsSync(join(root, dir, 'tests/global-setup.mjs')) ? ['tests/global-setup.mjs'] : [],
    // A bound for a hung test, not a speed check: tests that start several node processes one after another (the
    // CLI's) need well over 30 s on a loaded two-core machine, and the suite must pass there too.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})

// CI sets BRIDLE_TEST_REPORT to a file path to get vitest's JSON report (for the pass/fail counts) as well.
const report = process.env.BRIDLE_TEST_REPORT

export default defineConfig({
  test: {
    ...(report ? { reporters: ['default', 'json'], outputFile: { json: report } } : {}),
    projects: [
      ...folders.filter((f) => existsSync(join(root, f, 'package.json'))).map((f) => project(f, f)),
      project('tests', '.'),
    ],
  },
})
