#!/usr/bin/env node
/**
 * `pnpm test:mutation [group ...]`: runs StrykerJS over the critical files, one group of mutation/groups.mjs at a
 * time (all groups when none is named), then prints the scores (mutation/score.mjs). Each group keeps its own
 * incremental file under mutation/incremental/, so a rerun only tests mutants whose code or covering tests changed.
 *
 *   BRIDLE_MUTATION_FORCE=1        ignore the incremental files and test every mutant again
 *   BRIDLE_MUTATION_CONCURRENCY=2  test-runner processes per group (default 1: the machine is shared)
 *   BRIDLE_MUTATION_ONLY=a.ts,b.ts only the group's files whose paths end so (a big group's first run in parts)
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { groups } from './groups.mjs'
import { printScores } from './score.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const stryker = join(dirname(require.resolve('@stryker-mutator/core/package.json')), 'bin', 'stryker.js')

const named = process.argv.slice(2)
const unknown = named.filter((name) => !(name in groups))
if (unknown.length > 0) {
  console.error(`unknown mutation group(s): ${unknown.join(', ')}; known: ${Object.keys(groups).join(', ')}`)
  process.exit(2)
}
const selected = named.length > 0 ? named : Object.keys(groups)

const failed = []
for (const name of selected) {
  console.log(`\n== mutation group ${name}: ${groups[name].mutate.join(', ')}`)
  const run = spawnSync(process.execPath, [stryker, 'run', 'stryker.config.mjs'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, BRIDLE_MUTATION_GROUP: name },
  })
  if (run.status !== 0) failed.push(name)
}

const belowTarget = printScores(selected)
if (failed.length > 0) {
  console.error(`\nStryker failed for: ${failed.join(', ')}`)
  process.exit(1)
}
process.exit(belowTarget ? 1 : 0)
