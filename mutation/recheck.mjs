#!/usr/bin/env node
/**
 * `node mutation/recheck.mjs <group> [status]`: makes each mutant of a group's last run that ended with `status`
 * (default `Timeout`; for `Survived` or `NoCoverage`, only those not on the equivalent list) by hand, one at a time, and runs the test files that covered it with a generous bound. A mutant
 * Stryker saw time out on a loaded machine may only have been slow; this tells a real hang or failure from a test
 * run that would have passed given time. Prints one line per mutant:
 *
 *   failed   the covering tests fail with the mutant (detected)
 *   hung     they did not finish within the bound (detected: a hang a user would see)
 *   PASSED   they pass: the timeout hid a survivor, which needs a test or an equivalent entry
 *
 * The source file is restored after each mutant, and on Ctrl-C. Exits 1 when any mutant passed.
 *
 *   BRIDLE_RECHECK_SECONDS=300      the bound per mutant, after which its test run is killed (default 300)
 *   BRIDLE_RECHECK_TEST_SECONDS=30  vitest's per-test timeout (default 30: the covering tests take milliseconds)
 */
import { spawn } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { groups } from './groups.mjs'
import { groupResult, loadEquivalents } from './score.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const [name, status = 'Timeout'] = process.argv.slice(2)
if (!(name in groups)) {
  console.error(`usage: node mutation/recheck.mjs <group> [status]; groups: ${Object.keys(groups).join(', ')}`)
  process.exit(2)
}
const seconds = Number(process.env.BRIDLE_RECHECK_SECONDS ?? 300)
const testSeconds = Number(process.env.BRIDLE_RECHECK_TEST_SECONDS ?? 30)
const report = JSON.parse(readFileSync(join(root, `mutation/incremental/${name}.json`), 'utf8'))
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
/** The last mutant's vitest output, to see why it failed or where it hung. */
const logFile = join(tmpdir(), `bridle-recheck-${name}.log`)

/** A report test-file key is relative to its project's root; the group's projects say which roots to try. */
function testPaths(key) {
  return groups[name].projects
    .map((project) => (project === 'tests' ? key : join(project, key)))
    .filter((path) => existsSync(join(root, path)))
}

/** The ids of each test file's tests, to map a mutant's `coveredBy` to files. */
const fileOfTest = new Map()
for (const [key, file] of Object.entries(report.testFiles ?? {})) {
  for (const test of file.tests) fileOfTest.set(test.id, key)
}

/** `source` with the mutant's range (1-based lines and columns, end exclusive) replaced. */
function mutated(source, { location: { start, end }, replacement }) {
  const lines = source.split('\n')
  const offset = (pos) => lines.slice(0, pos.line - 1).reduce((sum, line) => sum + line.length + 1, 0) + pos.column - 1
  return source.slice(0, offset(start)) + replacement + source.slice(offset(end))
}

/** Runs vitest on `files` in its own process group, killed whole (workers included) when the bound passes. */
function runTests(files) {
  const args = [vitest, 'run', '--bail=1', `--testTimeout=${testSeconds * 1000}`, `--hookTimeout=${testSeconds * 1000}`]
  const log = openSync(logFile, 'w')
  const child = spawn(process.execPath, [...args, ...files], { cwd: root, stdio: ['ignore', log, log], detached: true })
  closeSync(log)
  return new Promise((resolve) => {
    let hung = false
    const timer = setTimeout(() => {
      hung = true
      process.kill(-child.pid, 'SIGKILL')
    }, seconds * 1000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve(hung ? 'hung' : code === 0 ? 'PASSED' : 'failed')
    })
  })
}

let restore
process.on('SIGINT', () => {
  restore?.()
  process.exit(130)
})

/** For an undetected status, the survivors the equivalent list does not explain; else every mutant of `status`. */
const listed = new Set(
  groupResult(name, loadEquivalents())
    .files.flatMap((file) => file.survivors)
    .map((mutant) => mutant.id),
)
const wanted = (mutant) =>
  mutant.status === status && (!['Survived', 'NoCoverage'].includes(status) || listed.has(mutant.id))

let passed = 0
for (const [file, entry] of Object.entries(report.files)) {
  const path = join(root, file)
  const original = readFileSync(path, 'utf8')
  if (original !== entry.source) {
    console.error(`${file} changed since the last run: rerun the group first`)
    process.exit(2)
  }
  for (const mutant of entry.mutants.filter(wanted)) {
    const tests = [...new Set((mutant.coveredBy ?? []).map((id) => fileOfTest.get(id)).filter(Boolean))]
    // a mutant in code that runs at import covers no test in particular: every project of the group then
    const files = tests.length > 0 ? tests.flatMap(testPaths) : groups[name].projects.map((p) => `--project=${p}`)
    restore = () => writeFileSync(path, original)
    writeFileSync(path, mutated(original, mutant))
    const verdict = await runTests(files)
    restore()
    if (verdict === 'PASSED') passed++
    const where = `${file}:${mutant.location.start.line}`
    console.log(`${verdict.padEnd(8)} ${where} ${mutant.mutatorName} -> ${JSON.stringify(mutant.replacement)}`)
  }
}
process.exit(passed > 0 ? 1 : 0)
