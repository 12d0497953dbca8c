// The CLI's start-up: the built `bridle` run as a user runs it, a fresh process each time, clocked from spawn to exit,
// beside `node -e 0` (the floor no command can go under). `--help` loads the command grammar only; `sessions` in a
// folder with no sessions boots the read side (the session store and session-jsonl) and lists nothing; `run` with an
// unknown flag is a usage error, found before anything boots.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { middle, quick } from './lib.mjs'

const BIN = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url))
const SPAWNS = quick ? 5 : 15

/** Milliseconds from spawning `node ARGS` in `cwd` to its exit; rejects when it exits with another code than `code`. */
function clock(args, cwd, code) {
  const started = performance.now()
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (exit) => {
      const ms = performance.now() - started
      if (exit === code) resolve(ms)
      else reject(new Error(`node ${args.join(' ')} exited ${exit}, not ${code}: ${stderr}`))
    })
  })
}

export async function cliStartup() {
  const cwd = mkdtempSync(join(tmpdir(), 'bridle-bench-cli-'))
  const commands = [
    { name: '`node -e 0` (the floor)', args: ['-e', '0'], code: 0 },
    { name: '`bridle --help`', args: [BIN, '--help'], code: 0 },
    { name: '`bridle run --bad-flag x` (a usage error)', args: [BIN, 'run', '--bad-flag', 'x'], code: 2 },
    { name: '`bridle sessions`, no sessions stored', args: [BIN, 'sessions'], code: 0 },
  ]
  const times = commands.map(() => [])
  try {
    // interleaved, so a burst of load falls on every command alike
    for (let i = 0; i < SPAWNS; i++)
      for (const [k, command] of commands.entries()) times[k].push(await clock(command.args, cwd, command.code))
  } finally {
    rmSync(cwd, { recursive: true, force: true })
  }
  const medians = times.map(middle)
  // each spawn is paired with the `node -e 0` of its own round: the median of those ratios
  const ratio = (k) => middle(times[k].map((ms, i) => ms / times[0][i]))
  return {
    title: `CLI start-up, a fresh process each time, ${SPAWNS} spawns each (interleaved): medians, ratios paired by round`,
    columns: ['command', 'spawn → exit (ms, median)', 'ratio to `node -e 0`'],
    rows: commands.map((command, k) => [command.name, Math.round(medians[k]), ratio(k).toFixed(2)]),
    // `sessions` has no bar: what it loads (zod, cordis, the session packages) is what reading a session needs
    bars: [{ name: '`bridle --help` within 2 × `node -e 0`', value: ratio(1), ok: ratio(1) <= 2 }],
  }
}
