/**
 * The vitest configuration StrykerJS runs (`pnpm test:mutation`, see TESTING.md): the repository's projects, narrowed
 * to those named in BRIDLE_MUTATION_PROJECTS (comma-separated project names, e.g. `packages/session,tests`) so one
 * file group's initial run does not pay for the whole suite. Tests that exercise code in a child process (a bundle or
 * a build of its own) cannot see a mutant that lives in this process, and a few multi-second end-to-end files would
 * dominate every surviving mutant's cost, so they are left out (`leftOut`, with the reason for each). Files run
 * quickest first (mutation/fastest-first-sequencer.ts). Test files share their worker's module cache (`isolate: false`): Stryker switches mutants at run time, so nothing has to be re-imported
 * per mutant. A file that replaces a module (`vi.mock`) cannot share that cache (an earlier file already imported
 * the real module), so such files run in an isolated twin of their project.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
import { FastestFirstSequencer } from './mutation/fastest-first-sequencer.js'
import base from './vitest.config.js'

const wanted = (process.env.BRIDLE_MUTATION_PROJECTS ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean)
const projects = (base.test?.projects ?? []) as TestProjectInlineConfiguration[]
const known = projects.map((project) => project.test?.name as string)
const unknown = wanted.filter((name) => !known.includes(name))
if (unknown.length > 0)
  throw new Error(`BRIDLE_MUTATION_PROJECTS names unknown projects: ${unknown.join(', ')} (known: ${known.join(', ')})`)

/** Per project: files left out of mutation runs, with why. */
const leftOut: Record<string, string[]> = {
  tests: [
    // run the code under test in a child process (a bundle or the built CLI), where no mutant is active
    'tests/crash.spec.ts',
    'tests/mcp-cli.spec.ts',
    'tests/readme-example.spec.ts',
    'tests/reversed-boot.spec.ts',
    // multi-second end-to-end runs in this process (MCP servers, a 200-turn run, fuzzed size limits, every load
    // order): each surviving mutant they cover would pay 5-20 s per file. The package tests must kill what these
    // would; a mutant only they would kill is counted as a survivor, so leaving them out can only lower the score
    'tests/mcp-agent.spec.ts',
    'tests/compaction-long-run.spec.ts',
    'tests/json-limits.spec.ts',
    'tests/order-free-hmr.spec.ts',
  ],
  // bundles a child that writes the log (no mutant there); its parent-side reloads of truncated and killed logs repeat
  // what scan.spec's every-offset truncation property and the committed-prefix tests check in-process, and the two
  // probes cost ~17 s per mutant
  'packages/session-jsonl': ['tests/crash.spec.ts'],
  // a 3,000-call race against a swapping child process: whatever it kills it kills by luck, and it costs ~8 s per
  // mutant; the deterministic descriptor tests (open-confined, swapped-file) must kill the confinement mutants
  'plugins/read-file': ['tests/race.spec.ts'],
}

/** The spec files directly under `<root>/tests` (recursively) that mock a module, relative to `root`. */
function mockingSpecs(root: string): string[] {
  const dir = join(root, 'tests')
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.spec.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => /\bvi\.(do)?[mM]ock\(/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(root, file))
}

export default defineConfig({
  test: {
    // quickest test files first: with Stryker's bail a killed mutant stops at its first failing test
    sequence: { sequencer: FastestFirstSequencer },
    projects: projects
      .filter((project) => wanted.length === 0 || wanted.includes(project.test?.name as string))
      .flatMap((project) => {
        const mocking = mockingSpecs(project.test?.root as string)
        // one worker on a shared machine: the suite's 30 s test timeout is too tight for its slowest properties
        const shared = { ...project.test, testTimeout: 180_000 }
        const exclude = [...(leftOut[shared.name as string] ?? []), '**/node_modules/**']
        const out: TestProjectInlineConfiguration[] = [
          { ...project, test: { ...shared, isolate: false, exclude: [...exclude, ...mocking] } },
        ]
        if (mocking.length > 0) {
          out.push({
            ...project,
            test: { ...shared, name: `${shared.name} (isolated)`, isolate: true, include: mocking, exclude },
          })
        }
        return out
      }),
  },
})
