// StrykerJS configuration for `pnpm test:mutation` (TESTING.md). One run mutates one file group of
// mutation/groups.mjs, named by BRIDLE_MUTATION_GROUP; mutation/run.mjs runs the groups one after another.
import { groups } from './mutation/groups.mjs'

const name = process.env.BRIDLE_MUTATION_GROUP ?? ''
const group = groups[name]
if (group === undefined) {
  throw new Error(
    `BRIDLE_MUTATION_GROUP must name a group of mutation/groups.mjs (${Object.keys(groups).join(', ')}), got "${name}"`,
  )
}
// BRIDLE_MUTATION_ONLY=request-header.ts,digest.ts narrows the group to the files whose paths end so: a big group can
// get its first run in parts, each part listing every file of the earlier ones too (the incremental file then holds
// only the files of the last run, and a later run of the whole group reuses their results).
const only = (process.env.BRIDLE_MUTATION_ONLY ?? '')
  .split(',')
  .map((part) => part.trim())
  .filter(Boolean)
const mutate = only.length === 0 ? group.mutate : group.mutate.filter((file) => only.some((end) => file.endsWith(end)))
if (mutate.length < only.length) {
  throw new Error(
    `BRIDLE_MUTATION_ONLY names files outside group ${name} (${group.mutate.join(', ')}): ${only.join(', ')}`,
  )
}
// The test-runner child processes read the project list from the environment (vitest.mutation.config.ts).
process.env.BRIDLE_MUTATION_PROJECTS = group.projects.join(',')

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate,
  // the machine is shared: one test-runner process unless BRIDLE_MUTATION_CONCURRENCY says otherwise
  concurrency: Number(process.env.BRIDLE_MUTATION_CONCURRENCY ?? 1),
  // added to 1.5 × a mutant's normal test time: a mutant that loops forever costs this long
  timeoutMS: 10_000,
  dryRunTimeoutMinutes: 40,
  // The incremental file is checked in: a rerun after a change tests only the mutants whose code or tests changed.
  incremental: true,
  incrementalFile: `mutation/incremental/${name}.json`,
  force: process.env.BRIDLE_MUTATION_FORCE === '1',
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowEmojis: false, logTests: false, reportScoreTable: true },
  ignorePatterns: ['.turbo', 'coverage', 'reports', 'bench/results', '.bridle', 'mutation/incremental', '.git'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  disableTypeChecks: true,
  thresholds: { high: 95, low: 90, break: null },
}
