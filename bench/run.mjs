// `pnpm bench [--quick] [--busy] [--only <scenario>[,<scenario>…]]` (or `--only=…`): runs every scenario (or the named
// ones), prints the tables and, for a full quiet run of all of them, writes them into BENCHMARKS.md. Results are ratios from one run
// on one machine; a bar that fails makes the exit code 1 (unless the bar says it cannot be judged on this machine:
// `gate: false` with a `why`, printed beside its ❌).
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { quick } from './lib.mjs'
import { stepOverhead } from './step-overhead.mjs'
import { assembly } from './assembly.mjs'
import { sessionAppend } from './session-append.mjs'
import { jsonlReload } from './jsonl-reload.mjs'
import { cacheStability } from './cache-stability.mjs'
import { compactionCache } from './compaction-cache.mjs'
import { firstStep } from './first-step.mjs'
import { memory } from './memory.mjs'
import { manyAgents } from './many-agents.mjs'
import { postgresBeside } from './postgres.mjs'
import { viewerFirstPaint } from './viewer-first-paint.mjs'
import { cliStartup } from './cli-startup.mjs'
import { sessionsListing } from './sessions-listing.mjs'
import { otelOverhead } from './otel-overhead.mjs'
import { anthropicCache } from './anthropic-cache.mjs'
import { hotReload } from './hot-reload.mjs'
import { secretsFilter } from './secrets-filter.mjs'
import { cluster } from './cluster.mjs'

const all = [
  stepOverhead,
  firstStep,
  manyAgents,
  memory,
  assembly,
  sessionAppend,
  jsonlReload,
  cacheStability,
  postgresBeside,
  compactionCache,
  anthropicCache,
  viewerFirstPaint,
  cliStartup,
  sessionsListing,
  otelOverhead,
  hotReload,
  secretsFilter,
  cluster,
]
// `--only a,b` or `--only=a,b` (or repeated) picks scenarios by function name; a partial run only prints.
const only = process.argv.flatMap((arg, i, argv) => {
  if (arg.startsWith('--only=')) return arg.slice('--only='.length).split(',')
  return argv[i - 1] === '--only' ? arg.split(',') : []
})
// `--report FILE` writes every bar's name, value and verdict as JSON (scripts/bench-verdicts.mjs reads it);
// `--no-write` leaves BENCHMARKS.md alone even after a full quiet run.
const reportFile = process.argv.flatMap((arg, i, argv) => (argv[i - 1] === '--report' ? [arg] : []))[0]
const noWrite = process.argv.includes('--no-write')
const unknown = only.filter((name) => !all.some((s) => s.name === name))
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown scenario ${unknown.join(', ')}; known: ${all.map((s) => s.name).join(', ')}\n`)
  process.exit(2)
}
const scenarios = only.length > 0 ? all.filter((s) => only.includes(s.name)) : all
// `--busy`: one CPU-bound process beside the benchmarks for the whole run (what a shared machine often has), so a
// bar can be checked for robustness against load; it only prints, like `--quick`.
const busy = process.argv.includes('--busy')
const burner = busy ? spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }) : undefined
process.on('exit', () => burner?.kill('SIGKILL'))
const started = Date.now()
// Other processes share these cores: the run records the load averages (as `uptime` prints them) at both ends.
const loads = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')
const loadBefore = loads()
const sections = []
const verdicts = []
let failed = 0
for (const scenario of scenarios) {
  process.stderr.write(`bench: ${scenario.name}…\n`)
  const r = await scenario()
  const table = [
    `### ${r.title}`,
    '',
    `| ${r.columns.join(' | ')} |`,
    `|${r.columns.map(() => '---').join('|')}|`,
    ...r.rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    ...r.bars.map(
      (b) =>
        `- ${b.ok ? '✅' : '❌'} ${b.name}: measured ${Number.isInteger(b.value) ? b.value : b.value.toFixed(3)}` +
        (b.gate === false && !b.ok ? ` (does not fail the run: ${b.why})` : ''),
    ),
  ].join('\n')
  // A bar with `gate: false` (and its `why`) is reported but cannot fail the run on this machine.
  failed += r.bars.filter((b) => !b.ok && b.gate !== false).length
  for (const b of r.bars)
    verdicts.push({ scenario: scenario.name, name: b.name, value: b.value, ok: b.ok, gate: b.gate !== false })
  sections.push(table)
  process.stdout.write(`${table}\n\n`)
}

const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`
const body = [
  `Run of ${new Date().toISOString().slice(0, 10)} on ${machine}; ${Math.round((Date.now() - started) / 1000)} s${quick ? ' (quick)' : ''}${busy ? ' (busy)' : ''}; ` +
    `load average (1, 5, 15 min) ${loadBefore} at the start and ${loads()} at the end (other processes share the cores).`,
  '',
  ...sections.flatMap((s) => [s, '']),
].join('\n')

burner?.kill('SIGKILL')
if (reportFile)
  writeFileSync(reportFile, JSON.stringify({ quick, busy, loadBefore, loadAfter: loads(), verdicts }, null, 2))
if (!quick && !busy && !noWrite && only.length === 0) {
  const file = new URL('../BENCHMARKS.md', import.meta.url)
  const text = readFileSync(file, 'utf8')
  const [head, rest] = text.split('<!-- results:start -->')
  const tail = rest?.split('<!-- results:end -->')[1] ?? '\n'
  writeFileSync(file, `${head}<!-- results:start -->\n${body}<!-- results:end -->${tail}`)
  process.stderr.write('bench: BENCHMARKS.md updated\n')
}
if (failed > 0) process.stderr.write(`bench: ${failed} bar(s) not met\n`)
process.exit(failed > 0 ? 1 : 0)
