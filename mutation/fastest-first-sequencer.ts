/**
 * The test-file order of mutation runs (vitest.mutation.config.ts): quickest files first. Stryker runs a mutant's
 * covering tests with `bail: 1`, so a killed mutant costs only the files run before the first failing test. vitest's
 * own order runs the slowest file first (right for a full suite on many workers, wrong here): a mutant killed by a
 * 50 ms test then first paid for a multi-second property. A survivor runs every covering test in either order, so
 * the order changes what a mutant costs, never whether it is killed.
 */
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

export class FastestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root
    // vitest's cache holds each file's duration in its last run (the dry run, then the mutant runs' filtered
    // subsets); a file never run yet sorts first, as vitest does, so its time gets measured
    const duration = (spec: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(root, spec.moduleId)}`)?.duration ?? -1
    // across projects too: vitest still hands each project's files to its own worker tasks (groupSpecs)
    return [...files].sort((a, b) => duration(a) - duration(b))
  }
}
