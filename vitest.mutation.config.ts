/**
 * The vitest configuration StrykerJS runs (`pnpm test:mutation`, see TESTING.md): the repository's projects, narrowed
 * to those named in BRIDLE_MUTATION_PROJECTS (comma-separated project names, e.g. `packages/session,tests`) so one
 * file group's initial run does not pay for the whole suite. Tests that exercise code in a child process (a bundle or
 * a build of its own) cannot see a mutant that lives in this process, so they are left out. Test files share their
 * worker's module cache (`isolate: false`): Stryker switches mutants at run time, so nothing has to be re-imported
 * per mutant, and every file here passes that way (the suite's own config keeps isolation).
 */
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
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

const childProcessTests = ['tests/crash.spec.ts']

export default defineConfig({
  test: {
    projects: projects
      .filter((project) => wanted.length === 0 || wanted.includes(project.test?.name as string))
      .map((project) => ({
        ...project,
        // one worker on a shared machine: the suite's 30 s test timeout is too tight for its slowest properties
        test: {
          ...project.test,
          isolate: false,
          testTimeout: 180_000,
          exclude: [...childProcessTests, '**/node_modules/**'],
        },
      })),
  },
})
