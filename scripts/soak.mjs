#!/usr/bin/env node
/**
 * `pnpm test:soak [runs] [filter...]`: the whole suite several times in a row (10 by default), to show it does not fail
 * by luck or by timing; vitest file filters after `runs` soak only the matching test files. Each run's vitest JSON
 * report goes to `<out>/run-N.json` and its output to `<out>/run-N.log`; a line per run (exit status, counts, load
 * average before and after) goes to `<out>/summary.txt` and the terminal. Every run
 * happens even after a failure, so one report shows how often it fails; the exit status is 1 when any run failed.
 * Run it beside other work (a mutation run, a second suite) to test under load: TESTING.md says why.
 *
 *   BRIDLE_SOAK_OUT=dir   where the reports go (default: soak-report/, ignored by git)
 */
import { spawnSync } from 'node:child_process'
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const runs = process.argv[2] === undefined ? 10 : Number(process.argv[2])
if (!Number.isSafeInteger(runs) || runs < 1) {
  console.error(`pnpm test:soak: the number of runs must be a positive whole number, got "${process.argv[2]}"`)
  process.exit(2)
}
const filters = process.argv.slice(3)
const out = resolve(root, process.env.BRIDLE_SOAK_OUT ?? 'soak-report')
mkdirSync(out, { recursive: true })
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')
const load = () => loadavg()[0].toFixed(2)

/** `N passed, N failed` from a run's JSON report, or why there is none (vitest died before writing it). */
function counts(reportFile) {
  if (!existsSync(reportFile)) return { failed: true, text: 'no report' }
  const report = JSON.parse(readFileSync(reportFile, 'utf8'))
  const failedFiles = report.testResults.filter((file) => file.status === 'failed').length
  const failed = report.numFailedTests > 0 || failedFiles > 0
  const text = `${report.numPassedTests} passed, ${report.numFailedTests} failed, ${failedFiles} files failed`
  return { failed, text }
}

let failures = 0
for (let run = 1; run <= runs; run++) {
  const reportFile = join(out, `run-${run}.json`)
  const logFile = join(out, `run-${run}.log`)
  rmSync(reportFile, { force: true }) // an earlier soak's report must not stand in for a run that wrote none
  const loadBefore = load()
  const log = openSync(logFile, 'w')
  const child = spawnSync(process.execPath, [vitest, 'run', ...filters], {
    cwd: root,
    stdio: ['ignore', log, log],
    env: { ...process.env, BRIDLE_TEST_REPORT: reportFile },
  })
  closeSync(log)
  const result = counts(reportFile)
  const failed = child.status !== 0 || result.failed
  if (failed) failures++
  const exit = child.status ?? child.signal
  const line = `run ${run}/${runs}: exit ${exit}, ${result.text}, load ${loadBefore} -> ${load()}`
  appendFileSync(join(out, 'summary.txt'), `${new Date().toISOString()} ${line}\n`)
  console.log(failed ? `${line}  FAILED, see ${logFile}` : line)
}
console.log(`${runs - failures} of ${runs} runs passed`)
process.exit(failures > 0 ? 1 : 0)
