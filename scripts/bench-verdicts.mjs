// `node scripts/bench-verdicts.mjs [runs] [--only a,b]`: runs the benchmarks `runs` times (default 5) in each of four
// modes — quick and full, quiet and `--busy` — and prints, per bar, how many runs of each mode met it, as the Markdown
// table BENCHMARKS.md shows under "Quick, full, quiet and busy". Every run builds nothing (run `pnpm build` first) and
// leaves BENCHMARKS.md alone. A bar whose verdict differs between modes is what the table is for. Each cell also gives
// the smallest and largest value the runs measured.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const runner = fileURLToPath(new URL('../bench/run.mjs', import.meta.url))
const args = process.argv.slice(2)
const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 5)
const onlyIndex = args.indexOf('--only')
const only = onlyIndex >= 0 ? ['--only', args[onlyIndex + 1]] : []
const modes = [
  { name: 'quick, quiet', flags: ['--quick'] },
  { name: 'quick, busy', flags: ['--quick', '--busy'] },
  { name: 'full, quiet', flags: [] },
  { name: 'full, busy', flags: ['--busy'] },
]
const dir = mkdtempSync(join(os.tmpdir(), 'bridle-bench-verdicts-'))
const met = new Map() // bar name → per mode: [met, runs, values]
const loads = modes.map(() => [])
const crashed = modes.map(() => 0)
/** A value as the table shows it: 3 significant digits. */
const shown = (v) => String(Number(v.toPrecision(3)))
const cell = ([ok, total, values]) => {
  if (total === 0) return '—'
  const mark = ok === total ? '✅' : ok === 0 ? '❌' : '⚠️'
  const numbers = values.filter((v) => typeof v === 'number' && Number.isFinite(v))
  const range =
    numbers.length === 0
      ? ''
      : ` (${shown(Math.min(...numbers))}${numbers.length > 1 ? `–${shown(Math.max(...numbers))}` : ''})`
  return `${mark} ${ok}/${total}${range}`
}
/** The table so far (printed after every round, so a long run that is stopped still leaves its rounds). */
const table = () =>
  [
    `| bar | ${modes.map((m) => m.name).join(' | ')} |`,
    `|---|${modes.map(() => '---').join('|')}|`,
    ...[...met].map(([name, counts]) => `| ${name} | ${counts.map(cell).join(' | ')} |`),
    '',
    `Load average (1 min) at the start of each run: ${modes.map((m, i) => `${m.name} ${loads[i].join(', ')}`).join('; ')}.`,
    ...(crashed.some((n) => n > 0)
      ? [`Runs that ended without a report: ${modes.map((m, i) => `${m.name} ${crashed[i]}`).join('; ')}.`]
      : []),
  ].join('\n')
try {
  for (let run = 0; run < runs; run++) {
    for (const [m, mode] of modes.entries()) {
      const report = join(dir, `${m}-${run}.json`)
      process.stderr.write(`bench-verdicts: run ${run + 1}/${runs}, ${mode.name}\n`)
      const child = spawnSync(process.execPath, [runner, ...mode.flags, ...only, '--no-write', '--report', report], {
        stdio: ['ignore', 'ignore', 'inherit'],
      })
      // a run that crashed writes no report: it is counted (and its error is on stderr above), the rounds go on
      if (!existsSync(report)) {
        crashed[m] += 1
        process.stderr.write(`bench-verdicts: ${mode.name} run ${run + 1} ended with ${child.status} and no report\n`)
        continue
      }
      const result = JSON.parse(readFileSync(report, 'utf8'))
      loads[m].push(result.loadBefore.split(', ')[0])
      for (const bar of result.verdicts) {
        const counts = met.get(bar.name) ?? modes.map(() => [0, 0, []])
        counts[m][0] += bar.ok ? 1 : 0
        counts[m][1] += 1
        counts[m][2].push(bar.value)
        met.set(bar.name, counts)
      }
    }
    if (run < runs - 1) process.stderr.write(`bench-verdicts: after round ${run + 1}\n${table()}\n`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
process.stdout.write(`${table()}\n`)
