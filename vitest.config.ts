import { existsSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'
import { sourceAliases } from './tests/support/source-aliases.js'

const root = fileURLToPath(new URL('.', import.meta.url))
const folders = ['packages', 'plugins'].flatMap((group) =>
  readdirSync(join(root, group)).map((name) => join(group, name)),
)

// Tests import sibling packages from source (tests/support/source-aliases.ts), so a run never needs a fresh dist/.
const alias = sourceAliases(root)

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
